import type { Kysely, Selectable } from 'kysely';
import { API_KEY_SCOPES, type ApiKeyRecord, type ApiKeyScope, type ApiKeyStore } from '../../core/index.js';
import type { ApiKeysTable, DatabaseSchema } from '../schema.js';

function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    name: row.name,
    // Unknown words (written by a later release) grant nothing.
    scopes: row.scopes.split(' ').filter((s): s is ApiKeyScope => API_KEY_SCOPES.includes(s as ApiKeyScope)),
    keyHash: row.key_hash,
    prefix: row.key_prefix,
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

export function createApiKeyStore(db: Kysely<DatabaseSchema>): ApiKeyStore {
  return {
    async insert(key) {
      await db
        .insertInto('api_keys')
        .values({
          id: key.id,
          service_id: key.serviceId,
          name: key.name,
          key_hash: key.keyHash,
          key_prefix: key.prefix,
          scopes: key.scopes.join(' '),
          created_at: key.createdAt,
          created_by: key.createdBy,
          last_used_at: key.lastUsedAt,
          revoked_at: key.revokedAt,
        })
        .execute();
    },
    async list(serviceId) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('service_id', '=', serviceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    async get(id) {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },
    async findByHash(keyHash) {
      const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
      return row && toRecord(row);
    },
    async revoke(id, at) {
      const row = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async touch(id, at, notBefore) {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
        .execute();
    },
  };
}
