import type { AuthProvider } from '../providers/auth-provider.js';
import type { AuthProviderDependencies } from '../providers/provider-dependencies.js';
import { resolveIdentity } from '../identity/identity.js';
import { SamlServiceProvider } from './saml-provider.js';
import { samlRoutes } from './saml-routes.js';

/** The Saml provider: sign-in at the identity provider, the identity from the session's claims. */
export function createSamlProvider(
  deps: AuthProviderDependencies,
): AuthProvider & { readonly sp: SamlServiceProvider } {
  const settings = deps.config.authentication.saml;
  if (!settings) throw new Error('Authentication:Saml settings are missing.');
  const sp = new SamlServiceProvider(settings, deps);
  return {
    name: 'Saml',
    sp,
    authenticate(request) {
      const claims = request.session.claims;
      return Promise.resolve(claims ? resolveIdentity('saml', claims, deps.claimSettings) : null);
    },
    async registerRoutes(app) {
      await app.register(samlRoutes, { sp });
    },
    start: () => sp.start(),
    close: () => Promise.resolve(),
  };
}
