import type { Kysely } from 'kysely';
import type { SessionStore } from '../../core/index.js';
import { hashOfSecret } from '../../platform/bearer-secret.js';
import type { DatabaseSchema } from '../schema.js';

/**
 * Sessions are stored under the SHA-256 of their id (`sessions.sid`), never the id itself: the id
 * is the bearer secret of the cookie, so a copy of the table names no session anyone could resume,
 * whether or not the cookie-signing secret is known. Ids are 192 random bits (@fastify/session), so
 * a fast hash is enough (as for API keys).
 */
export function createSessionStore(db: Kysely<DatabaseSchema>): SessionStore {
  return {
    async put(sessionId, { data, expiresAt }) {
      await db
        .insertInto('sessions')
        .values({ sid: hashOfSecret(sessionId), data, expires_at: expiresAt })
        .onConflict((oc) => oc.column('sid').doUpdateSet({ data, expires_at: expiresAt }))
        .execute();
    },
    async get(sessionId) {
      const row = await db
        .selectFrom('sessions')
        .select(['data', 'expires_at'])
        .where('sid', '=', hashOfSecret(sessionId))
        .executeTakeFirst();
      return row && { data: row.data, expiresAt: Number(row.expires_at) };
    },
    async delete(sessionId) {
      await db.deleteFrom('sessions').where('sid', '=', hashOfSecret(sessionId)).execute();
    },
    async deleteExpired(nowMs) {
      await db.deleteFrom('sessions').where('expires_at', '<', nowMs).execute();
    },
  };
}
