import { AppError } from '../platform/errors.js';

/**
 * Regions (docs/regions.md): an instance whose PostgreSQL database is a hot standby runs as a
 * follower. It serves every read from the standby and writes nothing to it; writes go to the
 * primary region (`Server:PrimaryUrl`) or are refused.
 */

/** What the storage answers a write on a follower's database, whoever attempts it. */
export const FOLLOWER_READ_ONLY =
  'This instance is a read-only follower: its database is a PostgreSQL standby, which takes no writes. Send changes to an instance of the primary region.';

export function followerWriteRefused(detail: string = FOLLOWER_READ_ONLY): AppError {
  return new AppError('UNAVAILABLE', detail);
}

/** Where this instance stands, as the parts that write or forward need to know it. */
export interface InstanceRole {
  /** True while the database is a standby: nothing is written, writes go to the primary. */
  readonly follower: boolean;
  /** Server:PrimaryUrl (no trailing slash), where a follower forwards writes; null when unset. */
  readonly primaryUrl: string | null;
}

/**
 * WAL positions of PostgreSQL's streaming replication, so that a client of a follower reads its own
 * forwarded writes: the primary names its position after the write, the follower waits until its
 * standby has replayed that far before it answers.
 */
export interface WalPositions {
  /** The primary's current WAL position (an LSN such as `0/3000148`). */
  current(): Promise<string>;
  /** Resolves true once this standby has replayed `lsn`, false when `timeoutMs` passed first. */
  waitForReplay(lsn: string, timeoutMs: number): Promise<boolean>;
}
