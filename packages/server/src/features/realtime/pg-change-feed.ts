import { sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../platform/clock.js';
import { decodeNotice, encodeNotice, type ChangeFeed } from './change-feed.js';
import type { ChangeHub, ChangeNotice, EntryChange } from './change-hub.js';

export const CHANGE_CHANNEL = 'rc_changes';
/** How the LISTEN connection shows in pg_stat_activity. */
export const LISTEN_APPLICATION_NAME = 'realtime-config-listen';
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; leave room for the envelope. */
const MAX_INLINE_PAYLOAD = 7800;
/** How long an instance may lose its LISTEN connection and still replay every change exactly. */
const CHANGE_LOG_RETENTION_US = 24 * 60 * 60 * 1_000_000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;
const HEALTH_CHECK_MS = 15_000;
const PURGE_INTERVAL_MS = 10 * 60_000;

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface PostgresChangeFeedOptions {
  url: string;
  database: Database;
  hub: ChangeHub;
  clock: Clock;
  logger: Logger;
  /** Called with every notice as it is received; lets metrics count them. */
  onNotice?: (notice: ChangeNotice) => void;
}

/**
 * NOTIFY inside the writing transaction, LISTEN on a dedicated connection in every instance.
 * PostgreSQL delivers notifications at commit and in commit order, so every instance's hub sees
 * each version's changes in timestamp order. When the LISTEN connection drops, it reconnects with
 * backoff and re-reads every change of the watched versions after the last one it delivered.
 */
export function createPostgresChangeFeed(
  options: PostgresChangeFeedOptions,
): ChangeFeed & { readonly connected: boolean } {
  const { database, hub, clock, logger } = options;
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let everConnected = false;
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let healthTimer: NodeJS.Timeout | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  // Notifications are handled strictly one after another: fetching a parked payload or a re-sync
  // must not let a later change overtake an earlier one.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((err: unknown) => logger.error({ err }, 'change feed: handling a change failed'));
  };

  const deliver = (notice: ChangeNotice): void => {
    options.onNotice?.(notice);
    hub.publish(notice);
  };

  const handlePayload = async (payload: string): Promise<void> => {
    if (payload.startsWith('#')) {
      const row = await database.db
        .selectFrom('change_log')
        .select('payload')
        .where('id', '=', Number(payload.slice(1)))
        .executeTakeFirst();
      if (!row) {
        logger.warn({ ref: payload }, 'change feed: a parked change was purged before it was read');
        return;
      }
      deliver(decodeNotice(row.payload));
      return;
    }
    deliver(decodeNotice(payload));
  };

  /**
   * After the LISTEN connection was lost: per watched version, replays from the change log every
   * change after the last one delivered, exactly as committed (renames and deletions included).
   * Changes older than the log's retention are recovered from the entries themselves, where the
   * intermediate values of a key collapse into its latest state, as in any backfill.
   */
  const resync = async (): Promise<void> => {
    for (const versionId of hub.watchedVersions()) {
      const logged = await database.db
        .selectFrom('change_log')
        .select('payload')
        .where('version_id', '=', versionId)
        .where('ts', '>', hub.lastTimestamp(versionId) ?? 0)
        .orderBy('ts')
        .execute();
      let deleted = false;
      for (const row of logged) {
        const notice = decodeNotice(row.payload);
        deliver(notice);
        deleted ||= notice.kind === 'version-deleted';
      }
      if (!deleted) await resyncFromEntries(versionId);
    }
  };

  const resyncFromEntries = async (versionId: string): Promise<void> => {
    const after = hub.lastTimestamp(versionId) ?? 0;
    const version = await database.db
      .selectFrom('versions')
      .select(['service_id'])
      .where('id', '=', versionId)
      .executeTakeFirst();
    if (!version) {
      // Deleted longer ago than the log keeps: its entries are gone with it.
      deliver({ kind: 'version-deleted', serviceId: '', versionId, timestamp: Number.MAX_SAFE_INTEGER, entries: [] });
      return;
    }
    const rows = await database.db
      .selectFrom('entries')
      .select(['key', 'raw_value', 'generation', 'value_type', 'changed_at', 'deleted'])
      .where('version_id', '=', versionId)
      .where('changed_at', '>', after)
      .orderBy('changed_at')
      .orderBy('key')
      .execute();
    const byTimestamp = new Map<number, EntryChange[]>();
    for (const r of rows) {
      const timestamp = Number(r.changed_at);
      const list = byTimestamp.get(timestamp) ?? [];
      list.push({
        key: r.key,
        value: Number(r.deleted) === 1 ? null : r.raw_value,
        deleted: Number(r.deleted) === 1,
        generation: Number(r.generation),
        valueType: Number(r.value_type),
        timestamp,
      });
      byTimestamp.set(timestamp, list);
    }
    for (const [timestamp, entries] of byTimestamp) {
      deliver({ kind: 'entries', serviceId: version.service_id, versionId, timestamp, entries });
    }
  };

  const scheduleReconnect = (): void => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch(() => scheduleReconnect());
    }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
  };

  const lost = (c: pg.Client, err?: unknown): void => {
    if (client !== c) return;
    client = null;
    connected = false;
    c.removeAllListeners('notification');
    c.end().catch(() => undefined);
    if (closed) return;
    logger.warn({ err }, 'change feed: LISTEN connection lost; reconnecting');
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: options.url,
      keepAlive: true,
      application_name: LISTEN_APPLICATION_NAME,
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || message.payload === undefined) return;
      const payload = message.payload;
      enqueue(() => handlePayload(payload));
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (err) {
      lost(c, err);
      throw err;
    }
    connected = true;
    reconnectDelay = RECONNECT_MIN_MS;
    if (everConnected) {
      logger.info({}, 'change feed: LISTEN connection restored; re-reading changes');
      enqueue(resync);
    }
    everConnected = true;
  };

  return {
    get connected() {
      return connected;
    },
    async announce(tx, notices) {
      for (const notice of notices) {
        const payload = encodeNotice(notice);
        const row = await tx
          .insertInto('change_log')
          .values({ version_id: notice.versionId, ts: notice.timestamp, created_at: clock.nowMicros(), payload })
          .returning('id')
          .executeTakeFirstOrThrow();
        // Small changes travel inside the notification; large ones are fetched by id.
        const announced = Buffer.byteLength(payload) > MAX_INLINE_PAYLOAD ? `#${row.id}` : payload;
        await sql`select pg_notify(${CHANGE_CHANNEL}, ${announced})`.execute(tx);
      }
    },
    committed: () => undefined,
    async start() {
      await connect();
      healthTimer = setInterval(() => {
        const c = client;
        if (!c || !connected) return;
        // A connection that died without a FIN would otherwise go unnoticed until the next write.
        c.query('select 1').catch((err: unknown) => lost(c, err));
      }, HEALTH_CHECK_MS);
      healthTimer.unref();
      // Retention is a day; trimming it a few times an hour is plenty.
      purgeTimer = setInterval(() => {
        database.db
          .deleteFrom('change_log')
          .where('created_at', '<', clock.nowMicros() - CHANGE_LOG_RETENTION_US)
          .execute()
          .catch((err: unknown) => logger.warn({ err }, 'change feed: purging the change log failed'));
      }, PURGE_INTERVAL_MS);
      purgeTimer.unref();
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      clearInterval(healthTimer);
      clearInterval(purgeTimer);
      const c = client;
      client = null;
      connected = false;
      if (c) await c.end().catch(() => undefined);
      await queue;
    },
  };
}
