import { AppError } from '../../../platform/errors.js';
import type { Identity } from '../../../core/index.js';

/**
 * What the seeded admin may still do while it signs in with the built-in default password: sign
 * in, see who it is, change the password, sign out. Everything else would let anyone who knows
 * the default (it is in every README) run the service.
 */
const ALLOWED_PATHS = new Set(['/auth/login', '/auth/logout', '/auth/me', '/api/auth/me', '/api/users/me/password']);

export const CHANGE_DEFAULT_PASSWORD =
  'Change the default password first: PUT /api/users/me/password with {"currentPassword": "admin", "newPassword": "…"} (or sign in to the web console, which asks for it).';

/**
 * 403 for every request of an account that must first change its built-in default password;
 * `route` is the REST route's path, or null for a call of another kind (gRPC), which is refused.
 */
export function refuseWhileDefaultPassword(route: string | null, identity: Identity): void {
  if (identity.passwordChangeRequired !== true) return;
  if (route !== null && ALLOWED_PATHS.has(route)) return;
  throw AppError.forbidden(CHANGE_DEFAULT_PASSWORD);
}
