import {
  followerWriteRefused,
  type ChangeFeed,
  type ChangeHub,
  type ChangeNotice,
  type SecretCipher,
} from '../core/index.js';
import { replayWatchedVersions } from './change-log-replay.js';
import type { Db, Tx } from './database.js';
import { translateDatabaseError } from './database-errors.js';
import { decodeNotice } from './notice-wire.js';
import { createChangeLogStore } from './stores/change-log-store.js';

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ChangeLogPollerOptions {
  db: Db;
  hub: ChangeHub;
  cipher: SecretCipher;
  logger: Logger;
  /** Database:FollowIntervalMilliseconds: the pause between the end of one read and the next. */
  intervalMs: number;
  /** Called with every notice as it is received; lets metrics count them. */
  onNotice?: (notice: ChangeNotice) => void;
}

export interface ChangeLogPoller extends ChangeFeed<Tx> {
  /** Reads what committed since the last read and delivers it, after any read under way. */
  pollNow(): Promise<void>;
}

/**
 * The change feed of a follower (docs/regions.md): NOTIFY does not reach a hot standby, so the
 * change log, which replication carries, is read every interval. Each read asks for the rows of
 * transactions at or after the previous read snapshot's xmin: every transaction below it had ended
 * when that snapshot was taken, so its rows were in that read already. What a read sees again is
 * told apart by row id (a row's transaction stays at or after the xmin only while the xmin is held
 * back by an older open transaction). Within a version commits are serialized by the version's row
 * lock, so timestamp order is commit order and the primary's timestamps are delivered unchanged.
 *
 * A follower writes nothing, so it never announces: `announce` refuses.
 */
export function createChangeLogPoller(options: ChangeLogPollerOptions): ChangeLogPoller {
  const { hub, logger, cipher } = options;
  const log = createChangeLogStore(options.db, cipher);
  /** The xmin of the previous read's snapshot; null before the first read. */
  let horizon: bigint | null = null;
  /** Rows read at or after the horizon, by id, with their transaction. */
  const seen = new Map<number, bigint>();
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let failing = false;

  const deliver = (notice: ChangeNotice): void => {
    options.onNotice?.(notice);
    hub.publish(notice);
  };

  /** One read; `deliverRows` false for the first, which only marks where following begins. */
  const read = async (deliverRows: boolean): Promise<void> => {
    const { xmin, rows } = await log.committedSince(horizon);
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.set(row.id, row.txId);
      if (!deliverRows) continue;
      let notice: ChangeNotice;
      try {
        notice = decodeNotice(row.payload, cipher);
      } catch (err) {
        logger.error({ err, changeLogId: row.id }, 'change log poller: a change could not be decoded; skipped');
        continue;
      }
      deliver(notice);
    }
    // Never backwards: a standby restarted meanwhile may report an older xmin, below which every
    // transaction had ended already when the previous snapshot was taken.
    if (horizon === null || xmin > horizon) horizon = xmin;
    for (const [id, tx] of seen) if (tx < horizon) seen.delete(id);
  };

  const queue = (work: () => Promise<void>): Promise<void> => {
    const run = chain.then(work);
    chain = run.catch(() => undefined);
    return run;
  };

  const schedule = (): void => {
    if (!running) return;
    timer = setTimeout(() => {
      void queue(() => read(true)).then(
        () => {
          if (failing) logger.info({}, 'change log poller: reading the change log again');
          failing = false;
          schedule();
        },
        (err: unknown) => {
          // A standby restarting, or a query cancelled by a conflict with recovery: the next read
          // starts from the same horizon, so nothing is lost.
          if (!failing) logger.warn({ err }, 'change log poller: reading the change log failed; retrying');
          failing = true;
          schedule();
        },
      );
    }, options.intervalMs);
    timer.unref();
  };

  return {
    announce: () => Promise.reject(followerWriteRefused()),
    committed: () => undefined,
    pollNow: () => queue(() => read(true)),
    async start() {
      try {
        await queue(async () => {
          await read(false);
          // Versions watched already (a primary turning follower): what the hub may have missed.
          await replayWatchedVersions(log, hub, cipher, deliver);
        });
      } catch (err) {
        throw translateDatabaseError(err);
      }
      running = true;
      schedule();
    },
    async close() {
      running = false;
      clearTimeout(timer);
      await chain;
    },
  };
}
