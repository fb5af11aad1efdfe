import type { CurrentIdentities, Identity, PersonSnapshot } from '../../../core/index.js';
import { policiesFor, type ClaimSettings } from './identity.js';

/**
 * Who a kept person is now, for personal tokens (acting as their maker) and change-request approvals
 * (counted again at apply): a Local user acts with their current role and is gone once deleted; a
 * person of another provider keeps the roles their sign-in had, since the provider is not asked again.
 */
export function createCurrentIdentities(claims: ClaimSettings): CurrentIdentities {
  const withRoles = (person: PersonSnapshot, provider: Identity['provider'], roles: readonly string[]): Identity => ({
    id: person.id,
    email: person.email,
    name: person.name,
    provider,
    roles,
    policies: policiesFor(roles, claims.authorization),
  });
  return {
    async identityOf(users, person) {
      if (person.provider !== null && person.provider !== 'local') {
        return withRoles(person, person.provider, person.roles);
      }
      const user = await users.get(person.id);
      if (user) return withRoles(person, 'local', [user.role]);
      // A record from before providers were kept, of someone who is no Local user: only their
      // memberships count.
      return person.provider === null ? withRoles(person, 'local', []) : null;
    },
  };
}
