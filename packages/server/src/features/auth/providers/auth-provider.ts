import type { FastifyInstance } from 'fastify';
import type { Identity } from '../../../core/index.js';
import type { AppConfig } from '../../../platform/config/app-config.js';
import type { Authenticator } from '../sessions/auth-plugin.js';

/**
 * One sign-in provider (Local, OpenId, Jwt or Saml); exactly one is active. It turns requests into
 * identities (through `resolveIdentity` in identity.ts, shared by all) and serves its own sign-in
 * routes. Everything after the identity — policies, membership — is the same for every provider.
 */
export interface AuthProvider extends Authenticator {
  readonly name: AppConfig['authentication']['provider'];
  /** Registers the provider's own routes (sign-in, callbacks, metadata) on the app. */
  registerRoutes(app: FastifyInstance): Promise<void>;
  /**
   * Checks a bearer token of this provider (Jwt): the identity, or null when the token is not valid.
   * Used by gRPC when Grpc:RequireAuthentication is on. Providers without bearer tokens leave it out.
   */
  verifyBearer?(token: string): Promise<Identity | null>;
  /** Runs once the app is built: seeding, fetching metadata… */
  start(): Promise<void>;
  close(): Promise<void>;
}
