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
  /** Timestamp of the newest change sent on the stream; null when none was. */
  readonly lastEvent: number | null;
}

/**
 * The shared presence table. Each server instance writes only its own rows, in batches, and
 * refreshes their heartbeat; rows whose heartbeat is old belong to a server instance that died.
 */
export interface PresenceStore {
  add(records: readonly PresenceRecord[], heartbeat: number): Promise<void>;
  remove(serverInstance: string, streamNos: readonly number[]): Promise<void>;
  /** Sets the newest change sent on these streams. */
  setLastEvent(serverInstance: string, streamNos: readonly number[], lastEvent: number): Promise<void>;
  /** Refreshes the heartbeat of every row of the server instance. */
  heartbeat(serverInstance: string, now: number): Promise<void>;
  /** The streams of a version whose heartbeat is at or after `freshSince`, other server instances' only. */
  listVersion(versionId: string, freshSince: number, exceptServer: string): Promise<PresenceRecord[]>;
  /** Deletes rows whose heartbeat is before `before` (server instances that died); returns how many. */
  removeExpired(before: number): Promise<number>;
  /** Deletes every row of a server instance (it shuts down). */
  removeServer(serverInstance: string): Promise<void>;
}
