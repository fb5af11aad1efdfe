import type { SessionStore } from '@fastify/session';
import type { Kysely } from 'kysely';
import { translateDatabaseError } from '../../db/database-errors.js';
import type { DatabaseSchema } from '../../db/schema.js';

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: unknown) => void;

/**
 * Sessions live in the database so that every instance behind a load balancer shares them.
 * The callback shape is the one @fastify/session expects.
 */
export function createDbSessionStore(
  db: Kysely<DatabaseSchema>,
  idleTimeoutMs: number,
): SessionStore & { purgeExpired(): Promise<void> } {
  // A database that cannot be reached fails the request with 503, like every other read.
  const run = (work: Promise<void>, callback: Callback): void => {
    work.then(
      () => callback(),
      (err: unknown) => callback(translateDatabaseError(err)),
    );
  };
  return {
    set(sessionId: string, session: unknown, callback: Callback) {
      const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
      const expires = cookie?.expires ? new Date(cookie.expires).getTime() : Date.now() + idleTimeoutMs;
      const data = JSON.stringify(session);
      run(
        db
          .insertInto('sessions')
          .values({ sid: sessionId, data, expires_at: expires })
          .onConflict((oc) => oc.column('sid').doUpdateSet({ data, expires_at: expires }))
          .execute()
          .then(() => undefined),
        callback,
      );
    },
    get(sessionId: string, callback: GetCallback) {
      db.selectFrom('sessions')
        .select(['data', 'expires_at'])
        .where('sid', '=', sessionId)
        .executeTakeFirst()
        .then(
          (row) =>
            callback(null, row && Number(row.expires_at) > Date.now() ? (JSON.parse(row.data) as unknown) : null),
          (err: unknown) => callback(translateDatabaseError(err)),
        );
    },
    destroy(sessionId: string, callback: Callback) {
      run(
        db
          .deleteFrom('sessions')
          .where('sid', '=', sessionId)
          .execute()
          .then(() => undefined),
        callback,
      );
    },
    async purgeExpired() {
      await db.deleteFrom('sessions').where('expires_at', '<', Date.now()).execute();
    },
  } as SessionStore & { purgeExpired(): Promise<void> };
}
