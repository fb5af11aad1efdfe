export interface VersionRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly versionLabel: string;
  readonly description: string | null;
  /** Changes of its entries go through reviewed change requests. */
  readonly protected: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a version holds: live entries and the UTF-8 bytes of their texts (the counters of Versions:Max*). */
export interface VersionSize {
  readonly versionLabel: string;
  readonly entries: number;
  readonly bytes: number;
}

export interface VersionStore {
  insert(version: VersionRecord): Promise<void>;
  get(serviceId: string, id: string): Promise<VersionRecord | undefined>;
  /** A version of any service. */
  getById(id: string): Promise<VersionRecord | undefined>;
  findByLabel(serviceId: string, label: string): Promise<VersionRecord | undefined>;
  /** Versions of a service, oldest first. */
  list(serviceId: string): Promise<VersionRecord[]>;
  update(
    id: string,
    fields: { versionLabel: string; description: string | null; protected: boolean },
    updatedAt: number,
  ): Promise<VersionRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** The version's change clock: the timestamp of its last change (0 when none). */
  clock(id: string): Promise<number | undefined>;
  /**
   * Advances the version's change clock to max(now, last + 1) and returns it. In PostgreSQL the
   * UPDATE also locks the version row until the transaction ends, which serializes the writes of
   * one version so that commit order equals timestamp order. SQLite has one writer anyway. With
   * `serviceId`, only a version of that service is advanced (undefined otherwise): the existence
   * check and the clock in one statement.
   */
  advanceClock(
    id: string,
    nowMicros: number,
    serviceId?: string,
  ): Promise<{ readonly timestamp: number; readonly label: string; readonly protected: boolean } | undefined>;
  size(id: string): Promise<VersionSize | undefined>;
  /** Adds a change to the version's size counters and answers the new size (locking the row in PostgreSQL). */
  resize(id: string, change: { entries: number; bytes: number }): Promise<VersionSize | undefined>;
}
