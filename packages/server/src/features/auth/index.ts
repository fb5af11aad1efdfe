/** Sign-in providers, sessions, identities, policies, users, personal access tokens and API keys. */
export { apiKeyRoutes } from './api-keys/api-key-routes.js';
export { API_KEY_PREFIX, ApiKeys } from './api-keys/api-keys.js';
export { authRoutes, MeSchema, meOf } from './auth-routes.js';
export { createBearerCredentials, type BearerCredentials } from './credentials/bearer-credentials.js';
export { createCurrentIdentities } from './identity/current-identities.js';
export type { ClaimSettings } from './identity/identity.js';
export { BUILT_IN_ADMIN_PASSWORD } from './local/local-provider.js';
export type { AuthProvider } from './providers/auth-provider.js';
export { createAuthProvider } from './providers/providers.js';
export {
  authPlugin,
  callerOf,
  createSessionIdentityReader,
  identityOf,
  SESSION_COOKIE,
  type RoutePolicy,
} from './sessions/auth-plugin.js';
export { DeferredSigner } from './sessions/session-signer.js';
export { createSessionStoreAdapter } from './sessions/session-store.js';
export { PERSONAL_TOKEN_PREFIX, PersonalTokens } from './tokens/personal-tokens.js';
export { tokenRoutes } from './tokens/token-routes.js';
