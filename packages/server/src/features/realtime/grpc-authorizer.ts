import { AppError } from '../../platform/errors.js';
import { API_KEY_PREFIX, apiKeyActor, type ApiKeys } from '../auth/index.js';
import { actorOf, type Actor, type Identity } from '../auth/index.js';

/** What a call may present: a bearer token or API key, or the web console's session cookie. */
export interface GrpcCredentials {
  readonly authorization?: string | undefined;
  readonly cookie?: string | undefined;
}

/** Decides who makes a gRPC call, for the request's service; throws UNAUTHENTICATED or PERMISSION_DENIED. */
export interface GrpcAuthorizer {
  authorize(credentials: GrpcCredentials, serviceId: string): Promise<Actor>;
  /** Refuses at once a call that carries no credential at all where one is needed, before its message is read. */
  requirePresent(credentials: GrpcCredentials): void;
}

/** Who registers versions when gRPC needs no credentials: the client SDK, as before API keys. */
export const ANONYMOUS_CLIENT: Actor = Object.freeze({ userId: 'client-sdk', userName: 'client SDK' });

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const MISSING_CREDENTIALS = 'This call needs "authorization: Bearer <API key or token>".';

export interface GrpcAuthorizerOptions {
  /** Grpc:RequireAuthentication. */
  readonly required: boolean;
  readonly apiKeys: Pick<ApiKeys, 'authenticate'>;
  /** The active provider's bearer check (Jwt); without it only API keys are accepted. */
  readonly verifyBearer?: (token: string) => Promise<Identity | null>;
  /** The identity of a signed-in console session, from the Cookie header. */
  readonly sessionIdentity?: (cookieHeader: string | undefined) => Promise<Identity | null>;
}

export function createGrpcAuthorizer(options: GrpcAuthorizerOptions): GrpcAuthorizer {
  if (!options.required) return { authorize: () => Promise.resolve(ANONYMOUS_CLIENT), requirePresent: () => undefined };
  const { apiKeys, verifyBearer, sessionIdentity } = options;
  return {
    requirePresent({ authorization, cookie }) {
      if (!authorization && !cookie) throw AppError.unauthenticated(MISSING_CREDENTIALS);
    },
    async authorize({ authorization, cookie }, serviceId) {
      const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      if (!token) {
        const identity = sessionIdentity ? await sessionIdentity(cookie) : null;
        if (!identity) throw AppError.unauthenticated(MISSING_CREDENTIALS);
        // The console's live view: a signed-in user who may read and change values.
        if (!identity.policies.includes('canChange')) throw AppError.forbidden('This call needs the canChange policy.');
        return actorOf(identity);
      }
      if (token.startsWith(API_KEY_PREFIX)) {
        const key = await apiKeys.authenticate(token);
        if (!key) throw AppError.unauthenticated('The API key is not valid or has been revoked.');
        if (key.serviceId !== serviceId.toLowerCase()) {
          throw AppError.forbidden('The API key belongs to another service.');
        }
        return apiKeyActor(key);
      }
      const identity = verifyBearer ? await verifyBearer(token) : null;
      if (!identity) throw AppError.unauthenticated('The bearer token is not valid.');
      return actorOf(identity);
    },
  };
}
