import { sql } from 'kysely';
import type { WalPositions } from '../core/index.js';
import type { Db } from './database.js';
import { translateDatabaseError } from './database-errors.js';

/** What a PostgreSQL database says of its replication (docs/regions.md). */
export interface ReplicationStatus {
  /** pg_is_in_recovery(): the database is a standby, so the instance is a follower. */
  readonly inRecovery: boolean;
  /** WAL received from the primary and WAL replayed, as byte positions; null on a primary. */
  readonly received: bigint | null;
  readonly replayed: bigint | null;
  /** Seconds since the last replayed transaction committed at the primary; null when none was. */
  readonly lastReplayAgeSeconds: number | null;
}

/** An LSN (`16/B374D848`: high and low 32 bits in hex) as one number. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  if (high === undefined || low === undefined || !/^[0-9A-Fa-f]{1,8}$/.test(high) || !/^[0-9A-Fa-f]{1,8}$/.test(low)) {
    throw new Error(`not a WAL position: ${lsn}`);
  }
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

const REPLAY_POLL_MS = 10;

/** The replication functions of PostgreSQL; every failure says UNAVAILABLE when the database is away. */
export function createReplication(db: Db): WalPositions & { status(): Promise<ReplicationStatus> } {
  const one = async <T>(query: ReturnType<typeof sql<T>>): Promise<T> => {
    try {
      const { rows } = await query.execute(db);
      return rows[0] as T;
    } catch (error) {
      throw translateDatabaseError(error);
    }
  };
  return {
    async status() {
      const row = await one(sql<{
        in_recovery: boolean;
        received: string | null;
        replayed: string | null;
        replay_age: number | null;
      }>`select pg_is_in_recovery() as in_recovery,
          pg_last_wal_receive_lsn()::text as received,
          pg_last_wal_replay_lsn()::text as replayed,
          extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::float8 as replay_age`);
      return {
        inRecovery: row.in_recovery,
        received: row.received === null ? null : lsnValue(row.received),
        replayed: row.replayed === null ? null : lsnValue(row.replayed),
        lastReplayAgeSeconds: row.replay_age === null ? null : Math.max(0, Number(row.replay_age)),
      };
    },
    async current() {
      // The insert position: at or after the end of every committed transaction, even one committed
      // with synchronous_commit off whose record is not written out yet.
      return (await one(sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`)).lsn;
    },
    async waitForReplay(lsn, timeoutMs) {
      lsnValue(lsn); // refuses anything but a WAL position before it reaches SQL
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // A database that is no longer a standby (promoted) has everything there is.
        const { done } = await one(
          sql<{ done: boolean }>`select not pg_is_in_recovery() or pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`,
        );
        if (done) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, REPLAY_POLL_MS));
      }
    },
  };
}
