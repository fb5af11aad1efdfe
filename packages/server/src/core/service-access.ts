import { AppError } from '../platform/errors.js';
import type { ApiKeyScope } from './api-keys.js';
import type { Caller } from './caller.js';
import { hasPolicy, type Identity } from './identity.js';
import type { ServiceRole } from './services.js';

/** What the rule reads: the role a user has in a service. */
export interface RoleLookup {
  readonly services: { roleOf(serviceId: string, userIds: readonly string[]): Promise<ServiceRole | undefined> };
}

/**
 * What a call does to one service: read its versions and values, register a version (the SDK's
 * CreateVersion), change values (value sets, imports, restores, promotions, change requests), or
 * manage it (update it; its versions, entries, members, API keys, webhooks and protection).
 */
export type ServiceAction = 'read' | 'register' | 'write' | 'manage';

const ROLE_RANK: Readonly<Record<ServiceRole, number>> = { viewer: 0, editor: 1, owner: 2 };
/** The least role that may do each action (reading needs a role only of users without canChange). */
const NEEDED_ROLE: Readonly<Record<ServiceAction, ServiceRole>> = {
  read: 'viewer',
  register: 'editor',
  write: 'editor',
  manage: 'owner',
};
/** The scope an API key needs for each action; none may manage. */
const NEEDED_SCOPE: Readonly<Record<ServiceAction, ApiKeyScope | null>> = {
  read: 'read',
  register: 'register',
  write: 'write',
  manage: null,
};
const ACTION_WORDS: Readonly<Record<ServiceAction, string>> = {
  read: 'read it',
  register: 'register its versions',
  write: 'change its values',
  manage: 'manage it',
};

/** The ids a service's members list may name a user by. */
export const memberIdsOf = (identity: Identity): string[] => [identity.id, ...(identity.email ? [identity.email] : [])];

/** The role a user has in a service: every role for canAll users, else their membership's. */
export async function roleIn(lookup: RoleLookup, identity: Identity, serviceId: string): Promise<ServiceRole | null> {
  if (hasPolicy(identity, 'canAll')) return 'owner';
  return (await lookup.services.roleOf(serviceId.toLowerCase(), memberIdsOf(identity))) ?? null;
}

/**
 * The one rule of who may do what to a service, called by every entry point (the REST routes and
 * commands, the gRPC calls of every transport) so the paths cannot drift apart:
 * - canAll users act as owners of every service;
 * - a member acts with their role: viewers read, editors also register versions and change values,
 *   owners also manage the service; canChange users who are not members read;
 * - an API key acts only for its own service, within its scopes, and never manages;
 * - an anonymous caller (gRPC with Grpc:RequireAuthentication false) and an application (a bearer
 *   token of a subject without roles) read and register.
 * Answers why the caller may not, or null when it may.
 */
export async function serviceAccessRefusal(
  lookup: RoleLookup,
  caller: Caller,
  serviceId: string,
  action: ServiceAction,
): Promise<string | null> {
  switch (caller.kind) {
    case 'anonymous':
    case 'application':
      return action === 'read' || action === 'register'
        ? null
        : `Only a signed-in member of this service may ${ACTION_WORDS[action]}.`;
    case 'apiKey': {
      if (caller.key.serviceId !== serviceId.toLowerCase()) return 'The API key belongs to another service.';
      const scope = NEEDED_SCOPE[action];
      if (scope === null) return `API keys may not ${ACTION_WORDS[action]}.`;
      if (!caller.key.scopes.includes(scope)) {
        return `The API key has no "${scope}" scope (it has: ${caller.key.scopes.join(', ')}).`;
      }
      return null;
    }
    case 'user': {
      const { identity } = caller;
      const role = await roleIn(lookup, identity, serviceId);
      if (action === 'read' && (role !== null || hasPolicy(identity, 'canChange'))) return null;
      const needed = NEEDED_ROLE[action];
      if (role !== null && ROLE_RANK[role] >= ROLE_RANK[needed]) return null;
      return role === null
        ? `Only members of this service may ${ACTION_WORDS[action]}.`
        : `Your role in this service (${role}) may not ${ACTION_WORDS[action]}; that needs ${needed}.`;
    }
  }
}

/** The same rule, throwing PERMISSION_DENIED when the caller may not. */
export async function requireServiceAccess(
  lookup: RoleLookup,
  caller: Caller,
  serviceId: string,
  action: ServiceAction,
): Promise<void> {
  const refusal = await serviceAccessRefusal(lookup, caller, serviceId, action);
  if (refusal !== null) throw AppError.forbidden(refusal);
}
