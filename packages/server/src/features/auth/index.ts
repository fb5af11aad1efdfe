/** Sign-in providers, sessions, identities, policies, users and API keys. */
export { apiKeyRoutes } from './api-keys/api-key-routes.js';
export { API_KEY_PREFIX, ApiKeys } from './api-keys/api-keys.js';
export {
  authPlugin,
  createSessionIdentityReader,
  identityOf,
  SESSION_COOKIE,
  type RoutePolicy,
} from './sessions/auth-plugin.js';
export type { AuthProvider } from './providers/auth-provider.js';
export { authRoutes, MeSchema, meOf } from './auth-routes.js';
export { createSessionStoreAdapter } from './sessions/session-store.js';
export type { ClaimSettings } from './identity/identity.js';
export { createAuthProvider } from './providers/providers.js';
export { DeferredSigner } from './sessions/session-signer.js';
export { BUILT_IN_ADMIN_PASSWORD } from './local/local-provider.js';
