import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DatabaseSchema, VersionsTable } from '../../db/schema.js';

export interface VersionRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly versionLabel: string;
  readonly description: string | null;
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
    fields: { versionLabel: string; description: string | null },
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
  advanceClock(id: string, nowMicros: number, serviceId?: string): Promise<number | undefined>;
  size(id: string): Promise<VersionSize | undefined>;
  /** Adds a change to the version's size counters and answers the new size (locking the row in PostgreSQL). */
  resize(id: string, change: { entries: number; bytes: number }): Promise<VersionSize | undefined>;
}

function toRecord(row: Selectable<VersionsTable>): VersionRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    versionLabel: row.version_label,
    description: row.description,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function createVersionStore(db: Kysely<DatabaseSchema>, dialect: Dialect): VersionStore {
  const greatest = dialect === 'postgres' ? 'greatest' : 'max';
  return {
    async insert(version) {
      await db
        .insertInto('versions')
        .values({
          id: version.id,
          service_id: version.serviceId,
          version_label: version.versionLabel,
          description: version.description,
          created_at: version.createdAt,
          updated_at: version.updatedAt,
          last_change_ts: 0,
          entry_count: 0,
          entry_bytes: 0,
        })
        .execute();
    },
    async get(serviceId, id) {
      const row = await db
        .selectFrom('versions')
        .selectAll()
        .where('id', '=', id)
        .where('service_id', '=', serviceId)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async getById(id) {
      const row = await db.selectFrom('versions').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async findByLabel(serviceId, label) {
      const row = await db
        .selectFrom('versions')
        .selectAll()
        .where('service_id', '=', serviceId)
        .where('version_label', '=', label)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async list(serviceId) {
      const rows = await db
        .selectFrom('versions')
        .selectAll()
        .where('service_id', '=', serviceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    async update(id, fields, updatedAt) {
      const row = await db
        .updateTable('versions')
        .set({ version_label: fields.versionLabel, description: fields.description, updated_at: updatedAt })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async delete(id) {
      const result = await db.deleteFrom('versions').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async clock(id) {
      const row = await db.selectFrom('versions').select('last_change_ts').where('id', '=', id).executeTakeFirst();
      return row ? Number(row.last_change_ts) : undefined;
    },
    async advanceClock(id, nowMicros, serviceId) {
      const row = await db
        .updateTable('versions')
        .set({ last_change_ts: sql<number>`${sql.raw(greatest)}(last_change_ts + 1, ${nowMicros})` })
        .where('id', '=', id)
        .$if(serviceId !== undefined, (q) => q.where('service_id', '=', serviceId as string))
        .returning('last_change_ts')
        .executeTakeFirst();
      return row ? Number(row.last_change_ts) : undefined;
    },
    async size(id) {
      const row = await db
        .selectFrom('versions')
        .select(['version_label', 'entry_count', 'entry_bytes'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? sizeOf(row) : undefined;
    },
    async resize(id, change) {
      const row = await db
        .updateTable('versions')
        .set({
          entry_count: sql<number>`entry_count + ${change.entries}`,
          entry_bytes: sql<number>`entry_bytes + ${change.bytes}`,
        })
        .where('id', '=', id)
        .returning(['version_label', 'entry_count', 'entry_bytes'])
        .executeTakeFirst();
      return row ? sizeOf(row) : undefined;
    },
  };
}

function sizeOf(row: Pick<Selectable<VersionsTable>, 'version_label' | 'entry_count' | 'entry_bytes'>): VersionSize {
  return { versionLabel: row.version_label, entries: Number(row.entry_count), bytes: Number(row.entry_bytes) };
}
