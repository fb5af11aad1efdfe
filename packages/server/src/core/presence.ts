import type { Audience, NewestChanges } from './audience.js';

/**
 * One open change stream as the presence table holds it: what each server instance on a shared
 * database tells the others about the streams it serves (PostgreSQL; with SQLite there is one
 * server instance and its streams are known in memory).
 */
export interface PresenceRecord {
  /** The server instance that holds the stream. */
  readonly serverInstance: string;
  /** The stream's number within its server instance. */
  readonly streamNo: number;
  readonly serviceId: string;
  readonly versionId: string;
  /** What the client says of itself (x-rc-instance-id, x-rc-sdk); null when it says nothing. */
  readonly instanceId: string | null;
  readonly sdk: string | null;
  readonly userAgent: string | null;
  /** The peer address of the connection. */
  readonly address: string | null;
  /** The client's labels (x-rc-labels), as [key, value] pairs. */
  readonly labels: ReadonlyArray<readonly [string, string]>;
  readonly connectedAt: number;
  /** The timestamp the client resumed from (0 for a fresh start): it had every change up to it. */
  readonly resumedFrom: number;
  /** Timestamp of the newest change sent on the stream (or that it already had: a rollout step leaving it out); null when none was. */
  readonly lastEvent: number | null;
  /** Whether the stream receives secret entries; null for a row written by an older release. */
  readonly audience: Audience | null;
}

/** How many streams a version has, and how many of them are up to date. */
export interface PresenceCount {
  readonly total: number;
  readonly upToDate: number;
}

/**
 * The rule of "up to date": a stream has every change it may receive up to what was sent on it, or up
 * to the timestamp it resumed from, and is up to date when that reaches the newest change of its
 * audience (a stream without secrets is not behind after a change of a secret entry). A row of an
 * older release, whose audience is unknown, is measured against every change. The presence store
 * counts by the same rule in SQL.
 */
export function isUpToDate(
  stream: Pick<PresenceRecord, 'resumedFrom' | 'lastEvent' | 'audience'>,
  newest: NewestChanges,
): boolean {
  return Math.max(stream.resumedFrom, stream.lastEvent ?? 0) >= newest[stream.audience ?? 'secrets'];
}

/**
 * The shared presence table. Each server instance writes only its own stream rows, in batches, and
 * refreshes one heartbeat of its own; the streams of an instance whose heartbeat is old belong to
 * an instance that died. Ages are measured by the database's clock, so instances whose clocks
 * disagree never expire each other.
 */
export interface PresenceStore {
  add(records: readonly PresenceRecord[]): Promise<void>;
  remove(serverInstance: string, streamNos: readonly number[]): Promise<void>;
  /** Sets the newest change sent on these streams. */
  setLastEvent(serverInstance: string, streamNos: readonly number[], lastEvent: number): Promise<void>;
  /**
   * Refreshes the server instance's heartbeat. False when it had none: its first, or another
   * instance took it for dead (a stall longer than the expiry) and deleted its streams' rows.
   */
  heartbeat(serverInstance: string): Promise<boolean>;
  /**
   * The oldest `limit` streams of a version (by connection time) of instances whose heartbeat is at
   * most `maxAgeMicros` old, other instances' only.
   */
  listVersion(versionId: string, maxAgeMicros: number, exceptServer: string, limit: number): Promise<PresenceRecord[]>;
  /**
   * The same streams as listVersion (`limit` ≥ 1 of them), with how many there are in all and how
   * many are up to date by `isUpToDate`: one read, so the list and the counts agree while other
   * instances add and remove rows.
   */
  fleetOfVersion(
    versionId: string,
    maxAgeMicros: number,
    exceptServer: string,
    limit: number,
    newest: NewestChanges,
  ): Promise<PresenceCount & { readonly records: PresenceRecord[] }>;
  /** Deletes the streams of instances whose heartbeat is older than `maxAgeMicros` (they died); returns how many. */
  removeExpired(maxAgeMicros: number): Promise<number>;
  /** Deletes every row of a server instance (it shuts down). */
  removeServer(serverInstance: string): Promise<void>;
}
