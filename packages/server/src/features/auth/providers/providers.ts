import type { AuthProvider } from './auth-provider.js';
import type { AuthProviderDependencies } from './provider-dependencies.js';
import { createJwtProvider } from '../jwt/jwt-provider.js';
import { createLocalProvider } from '../local/local-provider.js';
import { createSamlProvider } from '../saml/saml-auth-provider.js';
import { createOpenIdProvider } from '../openid/openid-provider.js';

/** The active sign-in provider, chosen by Authentication:Provider. */
export function createAuthProvider(deps: AuthProviderDependencies): AuthProvider {
  const provider = deps.config.authentication.provider;
  switch (provider) {
    case 'Local':
      return createLocalProvider(deps);
    case 'Jwt':
      return createJwtProvider(deps);
    case 'OpenId':
      return createOpenIdProvider(deps);
    case 'Saml':
      return createSamlProvider(deps);
  }
}
