import type { Kysely } from 'kysely';
import type { PersonalTokenRecord, PersonalTokenStore, ProviderKind } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';
import { createCredentialStore } from './credential-store.js';

/** Personal access tokens in `personal_tokens`, a user's newest first. */
export function createPersonalTokenStore(db: Kysely<DatabaseSchema>): PersonalTokenStore {
  return createCredentialStore(db, {
    table: 'personal_tokens',
    columns: { owner: 'user_id', hash: 'token_hash', prefix: 'token_prefix' },
    listOrder: 'desc',
    fieldsOf: (row) => {
      const identity = JSON.parse(row.identity) as Partial<PersonalTokenRecord['identity']>;
      return {
        userId: row.user_id,
        provider: row.provider as ProviderKind,
        identity: {
          email: identity.email ?? null,
          name: identity.name ?? null,
          roles: Array.isArray(identity.roles) ? identity.roles.filter((r) => typeof r === 'string') : [],
        },
        expiresAt: Number(row.expires_at),
      };
    },
    columnsOf: (token) => ({
      user_id: token.userId,
      provider: token.provider,
      identity: JSON.stringify(token.identity),
      expires_at: token.expiresAt,
    }),
  });
}
