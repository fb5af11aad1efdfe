import type { ApiKeyScope } from './api-keys.js';
import { actorOf, apiKeyActor, type Actor, type Identity } from './identity.js';

/**
 * Who makes a call, whatever carried it (REST, native gRPC, Connect): a signed-in user (session,
 * bearer token), a service API key, or nobody (gRPC without credentials, when allowed).
 */
export type Caller =
  | { readonly kind: 'user'; readonly identity: Identity }
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
