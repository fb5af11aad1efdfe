import { AppError } from '../../platform/errors.js';
import { API_KEY_PREFIX, apiKeyActor, type ApiKeys } from '../auth/api-keys.js';
import { actorOf, type Actor, type Identity } from '../auth/identity.js';

/** Decides who makes a gRPC call, for the request's service; throws UNAUTHENTICATED or PERMISSION_DENIED. */
export interface GrpcAuthorizer {
  authorize(authorizationHeader: string | undefined, serviceId: string): Promise<Actor>;
}

/** Who registers versions when gRPC needs no credentials: the client SDK, as before API keys. */
export const ANONYMOUS_CLIENT: Actor = Object.freeze({ userId: 'client-sdk', userName: 'client SDK' });

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export interface GrpcAuthorizerOptions {
  /** Grpc:RequireAuthentication. */
  readonly required: boolean;
  readonly apiKeys: Pick<ApiKeys, 'authenticate'>;
  /** The active provider's bearer check (Jwt); without it only API keys are accepted. */
  readonly verifyBearer?: (token: string) => Promise<Identity | null>;
}

export function createGrpcAuthorizer(options: GrpcAuthorizerOptions): GrpcAuthorizer {
  if (!options.required) return { authorize: () => Promise.resolve(ANONYMOUS_CLIENT) };
  const { apiKeys, verifyBearer } = options;
  return {
    async authorize(header, serviceId) {
      const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
      if (!token) throw AppError.unauthenticated('This call needs "authorization: Bearer <API key or token>".');
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
