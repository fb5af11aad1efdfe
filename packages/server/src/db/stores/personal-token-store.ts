import type { Kysely, Selectable } from 'kysely';
import type { PersonalTokenRecord, PersonalTokenStore, ProviderKind } from '../../core/index.js';
import type { DatabaseSchema, PersonalTokensTable } from '../schema.js';

function toRecord(row: Selectable<PersonalTokensTable>): PersonalTokenRecord {
  const identity = JSON.parse(row.identity) as Partial<PersonalTokenRecord['identity']>;
  return {
    id: row.id,
    userId: row.user_id,
    provider: row.provider as ProviderKind,
    identity: {
      email: identity.email ?? null,
      name: identity.name ?? null,
      roles: Array.isArray(identity.roles) ? identity.roles.filter((r) => typeof r === 'string') : [],
    },
    name: row.name,
    tokenHash: row.token_hash,
    prefix: row.token_prefix,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

export function createPersonalTokenStore(db: Kysely<DatabaseSchema>): PersonalTokenStore {
  return {
    async insert(token) {
      await db
        .insertInto('personal_tokens')
        .values({
          id: token.id,
          user_id: token.userId,
          provider: token.provider,
          identity: JSON.stringify(token.identity),
          name: token.name,
          token_hash: token.tokenHash,
          token_prefix: token.prefix,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
          last_used_at: token.lastUsedAt,
          revoked_at: token.revokedAt,
        })
        .execute();
    },
    async listOf(userId) {
      const rows = await db
        .selectFrom('personal_tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    async get(id) {
      const row = await db.selectFrom('personal_tokens').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },
    async findByHash(tokenHash) {
      const row = await db
        .selectFrom('personal_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async revoke(id, at) {
      const row = await db
        .updateTable('personal_tokens')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async revokeAllOf(userId, at) {
      const result = await db
        .updateTable('personal_tokens')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async touch(id, at, notBefore) {
      await db
        .updateTable('personal_tokens')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
        .execute();
    },
  };
}
