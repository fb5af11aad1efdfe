import { AppError } from '../platform/errors.js';
import type { Caller } from './caller.js';
import { hasPolicy, type Identity } from './identity.js';

/** What the rule reads: whether a user is a member of a service. */
export interface MembershipLookup {
  readonly services: { hasAnyMember(serviceId: string, userIds: readonly string[]): Promise<boolean> };
}

/**
 * What a call does to one service: read its versions and values, register a version (the SDK's
 * CreateVersion), or change values (value sets, imports, restores, promotions).
 */
export type ServiceAction = 'read' | 'register' | 'write';

const ACTION_WORDS: Readonly<Record<ServiceAction, string>> = {
  read: 'read it',
  register: 'register its versions',
  write: 'change its values',
};

/** The ids a service's members list may name a user by. */
export const memberIdsOf = (identity: Identity): string[] => [identity.id, ...(identity.email ? [identity.email] : [])];

/**
 * The one rule of who may do what to a service, called by every entry point (REST commands, the
 * gRPC calls of every transport) so the paths cannot drift apart:
 * - canAll users may do everything;
 * - canChange users read every service, and register and change values of the services they are
 *   members of (by id or e-mail);
 * - an API key acts only for its own service;
 * - an anonymous caller (gRPC with Grpc:RequireAuthentication false) and an application (a bearer
 *   token of a subject without roles) read and register.
 * Throws PERMISSION_DENIED otherwise.
 */
export async function requireServiceAccess(
  stores: MembershipLookup,
  caller: Caller,
  serviceId: string,
  action: ServiceAction,
): Promise<void> {
  switch (caller.kind) {
    case 'anonymous':
    case 'application':
      if (action === 'write') throw AppError.forbidden('Changing values needs credentials.');
      return;
    case 'apiKey':
      if (caller.key.serviceId !== serviceId.toLowerCase()) {
        throw AppError.forbidden('The API key belongs to another service.');
      }
      if (action === 'write') throw AppError.forbidden('API keys may not change values.');
      return;
    case 'user': {
      const { identity } = caller;
      if (hasPolicy(identity, 'canAll')) return;
      if (!hasPolicy(identity, 'canChange'))
        throw AppError.forbidden('Your role does not allow changing values (it needs the canChange policy).');
      if (action === 'read') return;
      if (!(await stores.services.hasAnyMember(serviceId, memberIdsOf(identity)))) {
        throw AppError.forbidden(`Only members of this service may ${ACTION_WORDS[action]}.`);
      }
    }
  }
}
