import { AppError } from '../platform/errors.js';
import type { ApiKeyScope } from './api-keys.js';
import { actorOf, apiKeyActor, type Actor, type Identity } from './identity.js';

/**
 * Who makes a call, whatever carried it (REST, native gRPC, Connect): a signed-in user (session,
 * bearer token), a service API key, or nobody (gRPC without credentials, when allowed).
 */
export type Caller =
  | {
      readonly kind: 'user';
      readonly identity: Identity;
      /** The person called with one of their personal access tokens (not a session or the provider's token). */
      readonly via?: 'personalToken';
    }
  /**
   * A bearer token (Jwt) whose subject holds no role of any policy: a machine identity used for
   * service-to-service access. Over gRPC it acts like an SDK client (reads, registers), audited by
   * its subject; it has no rights in the management API.
   */
  | { readonly kind: 'application'; readonly identity: Identity }
  | {
      readonly kind: 'apiKey';
      readonly key: {
        readonly id: string;
        readonly serviceId: string;
        readonly name: string;
        readonly scopes: readonly ApiKeyScope[];
        /** The person who made the key (null for keys made before that was kept). */
        readonly createdBy?: string | null;
      };
    }
  | { readonly kind: 'anonymous' };

/** Who registers versions when gRPC needs no credentials: the client SDK, as before API keys. */
export const ANONYMOUS_CLIENT: Actor = Object.freeze({ userId: 'client-sdk', userName: 'client SDK' });

export const anonymousCaller: Caller = Object.freeze({ kind: 'anonymous' });

export const userCaller = (identity: Identity): Caller => ({ kind: 'user', identity });

/** The subject of the audit records a caller's changes write. */
export function actorOfCaller(caller: Caller): Actor {
  switch (caller.kind) {
    case 'user':
    case 'application':
      return actorOf(caller.identity);
    case 'apiKey':
      return apiKeyActor(caller.key);
    case 'anonymous':
      return ANONYMOUS_CLIENT;
  }
}

/**
 * Credentials and access (users, personal tokens, API keys, members and roles, webhook and
 * validator secrets, a version's protection) change only by a person signed in with a session or
 * the provider's own token: a leaked personal access token or API key must not mint more
 * credentials or widen access, which would outlive its revocation.
 */
export function requireSignedIn(caller: Caller): void {
  if (caller.kind === 'apiKey' || (caller.kind === 'user' && caller.via === 'personalToken')) {
    throw AppError.forbidden(
      `This changes credentials or access, which needs a signed-in session: ${caller.kind === 'apiKey' ? 'an API key' : 'a personal access token'} cannot do it.`,
    );
  }
}
