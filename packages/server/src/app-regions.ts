import type { Logger } from 'pino';
import {
  createLocalChangeFeed,
  type ChangeFeed,
  type ChangeHub,
  type ChangeNotice,
  type InstanceRole,
  type SecretCipher,
  type WalPositions,
} from './core/index.js';
import { createChangeLogPoller, type ChangeLogPoller } from './db/change-log-poller.js';
import type { Database, Tx } from './db/database.js';
import { createPostgresChangeFeed } from './db/pg-change-feed.js';
import { createReplication, type ReplicationStatus } from './db/replication.js';
import type { Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import { AppError } from './platform/errors.js';

/** Samples of received WAL still waiting for replay that are kept; one per role check. */
const MAX_LAG_SAMPLES = 3600;

export interface InstanceRoleOptions {
  readonly config: AppConfig;
  readonly database: Database;
  readonly hub: ChangeHub;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly cipher: SecretCipher;
  /** Called with every change notice the feed receives (metrics). */
  readonly onNotice?: (notice: ChangeNotice) => void;
}

/**
 * The instance's role and what changes with it (docs/regions.md): a follower when its PostgreSQL
 * database is a hot standby, a primary otherwise (SQLite always).
 */
export interface InstanceRoleControl extends InstanceRole {
  /** The replication delay a follower reports (0 on a primary). */
  readonly lagSeconds: number;
  /** The change feed for the unit of work: announces with NOTIFY, receives by LISTEN or the poller. */
  readonly feed: ChangeFeed<Tx>;
  /** WAL positions for read-your-writes after a forwarded write; null with SQLite. */
  readonly positions: WalPositions | null;
  /** Asks the database which role the instance has; the first thing start-up does. */
  detect(): Promise<void>;
  /**
   * A primary migrates the schema. A follower cannot write its standby: it waits (UNAVAILABLE, which
   * start-up retries) until replication has brought every migration of this release.
   */
  migrate(): Promise<{ readonly newer: readonly string[] }>;
  /**
   * Starts the change feed of the role and then checks the role every second: a promoted standby
   * makes the instance a primary (LISTEN, writes; presence and the webhook dispatcher, which write
   * only while `follower` is false), a primary turned standby a follower.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The role of an instance. On a follower the poller reads the change log (NOTIFY does not reach a
 * standby) and the unit of work refuses writes; when the standby is promoted, LISTEN starts with a
 * last read of the poller queued before its first notification, so no change falls between the two.
 */
export function createInstanceRole(options: InstanceRoleOptions): InstanceRoleControl {
  const { config, database, hub, clock, logger } = options;
  const primaryUrl = config.server.primaryUrl;
  const url = config.database.url;
  if (!url) {
    // The embedded database: one process, always the primary.
    const feed = createLocalChangeFeed(hub);
    return {
      follower: false,
      primaryUrl,
      lagSeconds: 0,
      feed,
      positions: null,
      detect: () => Promise.resolve(),
      migrate: () => database.migrate(),
      start: () => feed.start(),
      close: () => feed.close(),
    };
  }

  const replication = createReplication(database.db);
  const listenFeed = (catchUp?: () => Promise<void>) =>
    createPostgresChangeFeed({
      url,
      db: database.db,
      hub,
      clock,
      logger,
      cipher: options.cipher,
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      ...(catchUp ? { catchUp } : {}),
    });
  // Announcing needs no connection of its own (NOTIFY goes out in the writing transaction): this
  // instance is never started, it only announces, whichever feed receives.
  const announcer = listenFeed();
  const poller = (): ChangeLogPoller =>
    createChangeLogPoller({
      db: database.db,
      hub,
      cipher: options.cipher,
      logger,
      intervalMs: config.database.followIntervalMs,
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    });

  let follower = false;
  let receiving: ChangeFeed<Tx> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  let closed = false;
  let lagSeconds = 0;
  /** Received WAL positions not replayed yet, with when this instance first saw each. */
  const unreplayed: Array<{ lsn: bigint; atMs: number }> = [];

  /**
   * The delay is how long the oldest WAL received but not yet replayed has waited, bounded by the age
   * of the last replayed commit. Measured against what was received, a primary that wrote nothing
   * for an hour does not look an hour behind when its next write arrives, and a standby cut off
   * from its primary serves what it has without looking late (docs/regions.md, Failures).
   */
  const sampleLag = (status: ReplicationStatus): void => {
    const { received, replayed } = status;
    if (!status.inRecovery || received === null || replayed === null) {
      unreplayed.length = 0;
      lagSeconds = 0;
      return;
    }
    while (unreplayed.length > 0 && (unreplayed[0] as { lsn: bigint }).lsn <= replayed) unreplayed.shift();
    const nowMs = clock.nowMicros() / 1000;
    const newest = unreplayed.at(-1)?.lsn ?? -1n;
    if (received > replayed && received > newest && unreplayed.length < MAX_LAG_SAMPLES) {
      unreplayed.push({ lsn: received, atMs: nowMs });
    }
    const oldest = unreplayed[0];
    lagSeconds =
      oldest === undefined
        ? 0
        : Math.min((nowMs - oldest.atMs) / 1000, status.lastReplayAgeSeconds ?? Number.POSITIVE_INFINITY);
  };

  const becomePrimary = async (): Promise<void> => {
    const previous = receiving as ChangeLogPoller | null;
    const listen = listenFeed(previous ? () => previous.pollNow() : undefined);
    await listen.start();
    receiving = listen;
    follower = false;
    await previous?.close();
  };

  const becomeFollower = async (): Promise<void> => {
    follower = true; // writes are refused from now on
    const previous = receiving;
    receiving = null;
    await previous?.close();
    const poll = poller();
    await poll.start();
    receiving = poll;
  };

  const check = async (): Promise<void> => {
    let status: ReplicationStatus;
    try {
      status = await replication.status();
    } catch {
      return; // the database is away: the next check asks again
    }
    sampleLag(status);
    // A switch that failed half-way (no feed receiving) is tried again.
    if (closed || (status.inRecovery === follower && receiving !== null)) return;
    try {
      if (status.inRecovery) {
        logger.error(
          'The database became a standby under this instance (the former primary rejoined as a standby?): it is now a read-only follower.',
        );
        await becomeFollower();
      } else {
        logger.warn('The standby was promoted: this instance is now a primary (writes, LISTEN, presence, webhooks).');
        await becomePrimary();
      }
    } catch (err) {
      logger.warn({ err }, 'switching the role of this instance failed; retrying at the next check');
    }
  };

  return {
    get follower() {
      return follower;
    },
    primaryUrl,
    get lagSeconds() {
      return lagSeconds;
    },
    feed: {
      announce: (tx, notices) => announcer.announce(tx, notices),
      committed: (notices) => announcer.committed(notices),
      start: () => Promise.resolve(),
      close: () => Promise.resolve(),
    },
    positions: replication,
    async detect() {
      const status = await replication.status();
      follower = status.inRecovery;
      sampleLag(status);
    },
    async migrate() {
      if (!follower) return database.migrate();
      const { missing, newer } = await database.schemaStatus();
      if (missing.length > 0) {
        throw new AppError(
          'UNAVAILABLE',
          `This follower's standby lacks migrations of this release (${missing.join(', ')}): an instance of this release on the primary applies them, and replication brings them here.`,
        );
      }
      return { newer };
    },
    async start() {
      const feed = follower ? poller() : listenFeed();
      await feed.start();
      receiving = feed;
      timer ??= setInterval(() => {
        checking ??= check().finally(() => (checking = undefined));
      }, config.database.roleCheckIntervalMs);
      timer.unref();
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await checking;
      await receiving?.close();
    },
  };
}
