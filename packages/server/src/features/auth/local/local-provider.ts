import type { AuthProvider } from '../providers/auth-provider.js';
import type { AuthProviderDependencies } from '../providers/provider-dependencies.js';
import { LocalAccounts } from './local-accounts.js';
import { localSignInRoutes, userRoutes } from './local-routes.js';
import { SignInThrottle } from './sign-in-throttle.js';

/** The built-in default password of the seeded admin; a warning is logged while it is still in use. */
export const BUILT_IN_ADMIN_PASSWORD = 'admin';

/** Local accounts with passwords in our database; the admin is seeded on every start when missing. */
export function createLocalProvider(
  deps: AuthProviderDependencies,
): AuthProvider & { readonly accounts: LocalAccounts } {
  const accounts = new LocalAccounts(deps.uow, deps.clock, deps.claimSettings);
  const throttle = new SignInThrottle(deps.config.authentication.local.signInLimits);
  return {
    name: 'Local',
    accounts,
    authenticate: (request) => accounts.authenticate(request.session),
    async registerRoutes(app) {
      await app.register(localSignInRoutes, { local: accounts, throttle });
      await app.register(userRoutes, { local: accounts, throttle });
    },
    async start() {
      // A follower's standby has the primary's accounts; the primary seeds (docs/regions.md).
      if (deps.uow.readOnly) return;
      const { defaultAdminUsername, defaultAdminPassword } = deps.config.authentication.local;
      if (await accounts.seedAdmin(defaultAdminUsername, defaultAdminPassword, BUILT_IN_ADMIN_PASSWORD)) {
        deps.logger.warn(
          { username: defaultAdminUsername },
          'The admin account still has the built-in default password: the API refuses it everything but signing in and changing the password. Sign in and change it (the web console asks at once; or PUT /api/users/me/password).',
        );
      }
    },
    close: () => Promise.resolve(),
  };
}
