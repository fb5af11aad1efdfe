import type { AuthProvider, AuthProviderDependencies } from './auth-provider.js';
import { createLocalProvider } from './local-provider.js';

/** The active sign-in provider, chosen by Authentication:Provider. */
export function createAuthProvider(deps: AuthProviderDependencies): AuthProvider {
  const provider = deps.config.authentication.provider;
  switch (provider) {
    case 'Local':
      return createLocalProvider(deps);
    case 'OpenId':
    case 'Jwt':
    case 'Saml':
      // Refuse to start rather than run unguarded until the provider is built.
      throw new Error(`Authentication:Provider ${provider} is not available in this build; use Local.`);
  }
}
