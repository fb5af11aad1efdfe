/** Sign-in providers, sessions, identities, policies, users and API keys. */
export { apiKeyRoutes } from './api-key-routes.js';
export { API_KEY_PREFIX, apiKeyActor, ApiKeys } from './api-keys.js';
export {
  authPlugin,
  createSessionIdentityReader,
  identityOf,
  SESSION_COOKIE,
  type RoutePolicy,
} from './auth-plugin.js';
export type { AuthProvider } from './auth-provider.js';
export { authRoutes, MeSchema, meOf } from './auth-routes.js';
export { createDbSessionStore } from './db-session-store.js';
export { actorOf, hasPolicy, type Actor, type ClaimSettings, type Identity, type PolicyName } from './identity.js';
export { BUILT_IN_ADMIN_PASSWORD } from './local-provider.js';
export { createAuthProvider } from './providers.js';
export { DeferredSigner } from './session-signer.js';
