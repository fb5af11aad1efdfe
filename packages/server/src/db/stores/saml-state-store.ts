import type { Kysely } from 'kysely';
import type { SamlStateStore } from '../../core/index.js';
import { isUniqueViolation } from '../database-errors.js';
import type { DatabaseSchema } from '../schema.js';

/** Inserts a row; false when its id is taken. */
async function insertOnce(work: Promise<unknown>): Promise<boolean> {
  try {
    await work;
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export function createSamlStateStore(db: Kysely<DatabaseSchema>): SamlStateStore {
  return {
    async addRequest(id, createdAt, expireBefore) {
      // Requests never answered expire here, so the table stays small.
      await db.deleteFrom('saml_requests').where('created_at', '<', expireBefore).execute();
      return insertOnce(db.insertInto('saml_requests').values({ id, created_at: createdAt }).execute());
    },
    async requestCreatedAt(id) {
      const row = await db.selectFrom('saml_requests').select('created_at').where('id', '=', id).executeTakeFirst();
      return row && Number(row.created_at);
    },
    async removeRequest(id) {
      const deleted = await db.deleteFrom('saml_requests').where('id', '=', id).executeTakeFirst();
      return deleted.numDeletedRows > 0n;
    },
    async markAssertionUsed(id, expiresAt, now) {
      await db.deleteFrom('saml_assertions').where('expires_at', '<', now).execute();
      return insertOnce(db.insertInto('saml_assertions').values({ id, expires_at: expiresAt }).execute());
    },
  };
}
