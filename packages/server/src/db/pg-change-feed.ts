import pg from 'pg';
import type { ChangeFeed, ChangeHub, ChangeNotice, SecretCipher } from '../core/index.js';
import type { Clock } from '../platform/clock.js';
import { replayWatchedVersions } from './change-log-replay.js';
import type { Db, Tx } from './database.js';
import { translateDatabaseError } from './database-errors.js';
import { decodeNotice, encodeNotice } from './notice-wire.js';
import { createChangeLogStore } from './stores/change-log-store.js';

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
  db: Db;
  hub: ChangeHub;
  clock: Clock;
  logger: Logger;
  /** Seals secret values in the change log and the notifications, opens them on receipt. */
  cipher: SecretCipher;
  /** Called with every notice as it is received; lets metrics count them. */
  onNotice?: (notice: ChangeNotice) => void;
  /**
   * Runs first on the first connection, before any of its notifications is handled: a feed that
   * takes over from another (the follower's change-log poller, at promotion) delivers what that one
   * had not read yet, then what LISTEN brings; the hub drops what arrives twice.
   */
  catchUp?: () => Promise<void>;
}

/**
 * NOTIFY inside the writing transaction, LISTEN on a dedicated connection in every instance.
 * PostgreSQL delivers notifications at commit and in commit order, so every instance's hub sees
 * each version's changes in timestamp order.
 *
 * Nothing may be lost while the LISTEN connection is away (a restart, a failover, a terminated
 * backend): notifications are handled one after another on a queue, each bound to the connection
 * it came from. When that connection is lost, or handling one of its notifications fails, the
 * rest of its queue is dropped and a new connection is made; the first job of the new connection,
 * queued before any of its notifications, re-reads from the change log every change after the
 * last one delivered. The hub drops what arrives twice.
 */
export function createPostgresChangeFeed(
  options: PostgresChangeFeedOptions,
): ChangeFeed<Tx> & { readonly connected: boolean } {
  const { hub, clock, logger } = options;
  const log = createChangeLogStore(options.db, options.cipher);
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let everConnected = false;
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let healthTimer: NodeJS.Timeout | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();

  /** Queues work of one connection; it is skipped once that connection is lost, and a failure loses it. */
  const enqueue = (c: pg.Client, work: () => Promise<void>): void => {
    queue = queue.then(async () => {
      if (client !== c) return;
      try {
        await work();
      } catch (err) {
        logger.error({ err }, 'change feed: handling a change failed; reconnecting to re-read it');
        lost(c, err);
      }
    });
  };

  const deliver = (notice: ChangeNotice): void => {
    options.onNotice?.(notice);
    hub.publish(notice);
  };

  const handlePayload = async (payload: string): Promise<void> => {
    if (!payload.startsWith('#')) {
      deliver(decodeNotice(payload, options.cipher));
      return;
    }
    const parked = await log.payload(Number(payload.slice(1)));
    if (parked === undefined) {
      logger.warn({ ref: payload }, 'change feed: a parked change was purged before it was read');
      return;
    }
    deliver(decodeNotice(parked, options.cipher));
  };

  const resync = (): Promise<void> => replayWatchedVersions(log, hub, options.cipher, deliver);

  const scheduleReconnect = (): void => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch(() => scheduleReconnect());
    }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
  };

  function lost(c: pg.Client, err?: unknown): void {
    if (client !== c) return;
    client = null;
    connected = false;
    c.removeAllListeners('notification');
    c.end().catch(() => undefined);
    // Before the first connection, the server's start retries by itself.
    if (closed || !everConnected) return;
    logger.warn({ err }, 'change feed: LISTEN connection lost; reconnecting');
    scheduleReconnect();
  }

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: options.url,
      keepAlive: true,
      application_name: LISTEN_APPLICATION_NAME,
      connectionTimeoutMillis: 5000,
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || message.payload === undefined) return;
      const payload = message.payload;
      enqueue(c, () => handlePayload(payload));
    });
    client = c;
    try {
      await c.connect();
    } catch (err) {
      lost(c, err);
      throw err;
    }
    // A notification may arrive in the same read as LISTEN's answer, before the await below
    // returns: the re-sync is queued first, while nothing of this connection can be queued yet.
    const listening = c.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (everConnected) {
      enqueue(c, async () => {
        await listening;
        logger.info({}, 'change feed: LISTEN connection restored; re-reading changes');
        await resync();
      });
    } else if (options.catchUp) {
      const catchUp = options.catchUp;
      enqueue(c, async () => {
        await listening;
        await catchUp();
      });
    }
    try {
      await listening;
    } catch (err) {
      lost(c, err);
      throw err;
    }
    connected = true;
    everConnected = true;
    reconnectDelay = RECONNECT_MIN_MS;
  };

  return {
    get connected() {
      return connected;
    },
    async announce(tx, notices) {
      const txLog = createChangeLogStore(tx, options.cipher);
      for (const notice of notices) {
        const payload = encodeNotice(notice, options.cipher);
        // Small changes travel inside the notification; large ones are fetched by id.
        const inline = Buffer.byteLength(payload) <= MAX_INLINE_PAYLOAD;
        await txLog.appendAndNotify(
          { versionId: notice.versionId, ts: notice.timestamp, createdAt: clock.nowMicros(), payload },
          CHANGE_CHANNEL,
          inline,
        );
      }
    },
    committed: () => undefined,
    async start() {
      // A database that does not answer yet is UNAVAILABLE: the server's start retries.
      await connect().catch((err: unknown) => {
        throw translateDatabaseError(err);
      });
      healthTimer = setInterval(() => {
        const c = client;
        if (!c || !connected) return;
        // A connection that died without a FIN would otherwise go unnoticed until the next write.
        c.query('select 1').catch((err: unknown) => lost(c, err));
      }, HEALTH_CHECK_MS);
      healthTimer.unref();
      // Retention is a day; trimming it a few times an hour is plenty.
      purgeTimer = setInterval(() => {
        log
          .purgeCreatedBefore(clock.nowMicros() - CHANGE_LOG_RETENTION_US)
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
