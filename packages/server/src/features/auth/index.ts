/** Sign-in providers, sessions, identities, policies, users and API keys. */
export { apiKeyRoutes } from './api-key-routes.js';
export { API_KEY_PREFIX, ApiKeys } from './api-keys.js';
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
export type { ClaimSettings } from './identity.js';
export { createAuthProvider } from './providers.js';
export { DeferredSigner } from './session-signer.js';
