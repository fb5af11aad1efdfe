import type { Kysely } from 'kysely';
import type { SessionStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';

export function createSessionStore(db: Kysely<DatabaseSchema>): SessionStore {
  return {
    async put(sid, { data, expiresAt }) {
      await db
        .insertInto('sessions')
        .values({ sid, data, expires_at: expiresAt })
        .onConflict((oc) => oc.column('sid').doUpdateSet({ data, expires_at: expiresAt }))
        .execute();
    },
    async get(sid) {
      const row = await db
        .selectFrom('sessions')
        .select(['data', 'expires_at'])
        .where('sid', '=', sid)
        .executeTakeFirst();
      return row && { data: row.data, expiresAt: Number(row.expires_at) };
    },
    async delete(sid) {
      await db.deleteFrom('sessions').where('sid', '=', sid).execute();
    },
    async deleteExpired(nowMs) {
      await db.deleteFrom('sessions').where('expires_at', '<', nowMs).execute();
    },
  };
}
