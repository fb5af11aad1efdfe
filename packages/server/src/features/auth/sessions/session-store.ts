import type { SessionStore } from '@fastify/session';
import type { UnitOfWork } from '../../../core/index.js';

type Callback = (err?: unknown) => void;

type GetCallback = Parameters<SessionStore['get']>[1];
type StoredShape = Parameters<GetCallback>[1];

/**
 * How long a follower waits for a session it does not know (docs/regions.md): one made at the
 * primary a moment ago (a sign-in it forwarded, or one at the primary itself) reaches the standby by
 * replication. Only sessions whose signed cookie checks out are looked up, so nobody can make a
 * follower wait with made-up ids.
 */
export const FOLLOWER_SESSION_WAIT_MS = 2000;
const FOLLOWER_SESSION_POLL_MS = 50;

/**
 * @fastify/session's store on the sessions of the database, so that every instance behind a load
 * balancer shares them. Like every read, a database that cannot be reached fails the request with 503.
 */
export function createSessionStoreAdapter(
  uow: UnitOfWork,
  idleTimeoutMs: number,
): SessionStore & { purgeExpired(): Promise<void> } {
  const sessions = uow.read.sessions;
  const lookup = async (sessionId: string) => {
    let row = await sessions.get(sessionId);
    const deadline = Date.now() + FOLLOWER_SESSION_WAIT_MS;
    while (!row && uow.readOnly && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, FOLLOWER_SESSION_POLL_MS));
      row = await sessions.get(sessionId);
    }
    return row;
  };
  const run = (work: Promise<void>, callback: Callback): void => {
    work.then(() => callback(), callback);
  };
  // Wall-clock time, as @fastify/session's cookies expire by it (not the injectable change clock).
  const nowMs = () => Date.now();
  return {
    set(sessionId: string, session: unknown, callback: Callback) {
      const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
      const expiresAt = cookie?.expires ? new Date(cookie.expires).getTime() : nowMs() + idleTimeoutMs;
      run(sessions.put(sessionId, { data: JSON.stringify(session), expiresAt }), callback);
    },
    get(sessionId: string, callback: GetCallback) {
      lookup(sessionId).then(
        (row) => callback(null, row && row.expiresAt > nowMs() ? (JSON.parse(row.data) as StoredShape) : null),
        (err: unknown) => callback(err),
      );
    },
    destroy(sessionId: string, callback: Callback) {
      run(sessions.delete(sessionId), callback);
    },
    purgeExpired: () => sessions.deleteExpired(nowMs()),
  };
}
