import { anonymousCaller, type Caller, type Identity } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { isCrossOrigin, type RequestOrigin } from '../../platform/http/same-origin.js';
import type { BearerCredentials } from '../auth/index.js';

/** What a call may present: a bearer token or API key, or the web console's session cookie. */
export interface GrpcCredentials extends RequestOrigin {
  readonly authorization?: string | undefined;
  /** Counts only for calls from the console's own origin (see RequestOrigin). */
  readonly cookie?: string | undefined;
}

/** Credentials of a call from its HTTP headers, whatever transport carried it. */
export function credentialsFrom(header: (name: string) => string | undefined): GrpcCredentials {
  return {
    authorization: header('authorization'),
    cookie: header('cookie'),
    origin: header('origin'),
    fetchSite: header('sec-fetch-site'),
    host: header('host'),
  };
}

/** Decides who makes a gRPC call; throws UNAUTHENTICATED when credentials are needed and not valid. */
export interface GrpcAuthorizer {
  callerOf(credentials: GrpcCredentials): Promise<Caller>;
  /** Refuses at once a call that carries no credential at all where one is needed, before its message is read. */
  requirePresent(credentials: GrpcCredentials): void;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The bearer token or API key a call presents, if any (a session cookie is not one). */
export function bearerOf(credentials: GrpcCredentials): string | undefined {
  const { authorization } = credentials;
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
const MISSING_CREDENTIALS = 'This call needs "authorization: Bearer <API key or token>".';

export interface GrpcAuthorizerOptions {
  /** Grpc:RequireAuthentication. */
  readonly required: boolean;
  /** API keys, personal access tokens and the provider's bearer tokens (Jwt), as REST reads them. */
  readonly bearer: BearerCredentials;
  /** The identity of a signed-in console session, from the Cookie header. */
  readonly sessionIdentity?: (cookieHeader: string | undefined) => Promise<Identity | null>;
}

/**
 * The caller of a gRPC call. A presented API key, bearer token or console session counts whenever
 * it is valid; without Grpc:RequireAuthentication an absent or unusable one leaves the call
 * anonymous (as the SDKs without credentials expect), with it the call answers UNAUTHENTICATED.
 */
export function createGrpcAuthorizer(options: GrpcAuthorizerOptions): GrpcAuthorizer {
  const { required, bearer, sessionIdentity } = options;

  const presented = async (credentials: GrpcCredentials): Promise<Caller | string> => {
    const token = bearerOf(credentials);
    if (!token) {
      const cookie = isCrossOrigin(credentials) ? undefined : credentials.cookie;
      const identity = sessionIdentity ? await sessionIdentity(cookie) : null;
      return identity ? { kind: 'user', identity } : MISSING_CREDENTIALS;
    }
    const resolved = await bearer.resolve(token);
    if ('refused' in resolved) return resolved.refused;
    const { caller, via } = resolved;
    // A provider's token (Jwt) of a subject without roles is an application client: it reads and registers.
    if (via === 'provider' && caller.kind === 'user' && caller.identity.policies.length === 0) {
      return { kind: 'application', identity: caller.identity };
    }
    return caller;
  };

  return {
    requirePresent({ authorization, cookie }) {
      if (required && !authorization && !cookie) throw AppError.unauthenticated(MISSING_CREDENTIALS);
    },
    async callerOf(credentials) {
      if (!required && !credentials.authorization && !credentials.cookie) return anonymousCaller;
      const caller = await presented(credentials);
      if (typeof caller !== 'string') return caller;
      if (required) throw AppError.unauthenticated(caller);
      return anonymousCaller;
    },
  };
}

/** True when two resolutions of one stream's credentials stand for the same caller. */
export function sameCaller(a: Caller, b: Caller): boolean {
  if (a.kind === 'apiKey') return b.kind === 'apiKey' && b.key.id === a.key.id;
  if (a.kind === 'user' || a.kind === 'application') return b.kind === a.kind && b.identity.id === a.identity.id;
  return b.kind === 'anonymous';
}
