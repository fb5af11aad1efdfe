import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { inChunks, MAX_BOUND_VALUES } from '../../db/in-chunks.js';
import type { DatabaseSchema, EntriesTable } from '../../db/schema.js';

export interface EntryRecord {
  readonly id: string;
  readonly versionId: string;
  readonly key: string;
  readonly name: string;
  readonly rawValue: string | null;
  readonly valueType: number;
  readonly enumDefinition: string | null;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
  readonly generation: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Change-clock timestamp (µs) of the last change, deletion included. */
  readonly changedAt: number;
  readonly deleted: boolean;
}

export type EntryMetadata = Pick<
  EntryRecord,
  'name' | 'description' | 'groupName' | 'groupDescription' | 'enumDefinition' | 'rawValue'
>;

export interface EntryStore {
  /** Live (not deleted) entries of a version, ordered by key. */
  listLive(versionId: string): Promise<EntryRecord[]>;
  getLive(versionId: string, id: string): Promise<EntryRecord | undefined>;
  getManyLive(versionId: string, ids: readonly string[]): Promise<EntryRecord[]>;
  /** The row holding a key, live or tombstone. */
  findByKey(versionId: string, key: string): Promise<EntryRecord | undefined>;
  /** The rows holding any of the keys, live or tombstone. */
  findByKeys(versionId: string, keys: readonly string[]): Promise<EntryRecord[]>;
  insert(entry: EntryRecord): Promise<void>;
  /** Inserts several entries with one statement. */
  insertMany(entries: readonly EntryRecord[]): Promise<void>;
  /** Removes rows for good (tombstones replaced by re-created keys). */
  purge(...ids: string[]): Promise<void>;
  setValue(id: string, change: { rawValue: string | null; generation: number; changedAt: number }): Promise<void>;
  setMetadata(id: string, change: EntryMetadata & { generation: number; changedAt: number }): Promise<void>;
  /** Turns an entry into a tombstone: value null, deleted, generation and change time advanced. */
  markDeleted(id: string, change: { generation: number; changedAt: number }): Promise<void>;
  /** Every entry of the version changed after the timestamp, tombstones included, in change order. */
  changedSince(versionId: string, afterMicros: number): Promise<EntryRecord[]>;
}

function toRecord(row: Selectable<EntriesTable>): EntryRecord {
  return {
    id: row.id,
    versionId: row.version_id,
    key: row.key,
    name: row.name,
    rawValue: row.raw_value,
    valueType: Number(row.value_type),
    enumDefinition: row.enum_definition,
    description: row.description,
    groupName: row.group_name,
    groupDescription: row.group_description,
    generation: Number(row.generation),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    changedAt: Number(row.changed_at),
    deleted: Number(row.deleted) === 1,
  };
}

function toRow(e: EntryRecord): Insertable<EntriesTable> {
  return {
    id: e.id,
    version_id: e.versionId,
    key: e.key,
    name: e.name,
    raw_value: e.rawValue,
    value_type: e.valueType,
    enum_definition: e.enumDefinition,
    description: e.description,
    group_name: e.groupName,
    group_description: e.groupDescription,
    generation: e.generation,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    changed_at: e.changedAt,
    deleted: e.deleted ? 1 : 0,
  };
}

export function createEntryStore(db: Kysely<DatabaseSchema>): EntryStore {
  /** Every change of an entry also advances its generation and its change time. */
  const applyChange = async (
    id: string,
    columns: Updateable<EntriesTable>,
    change: { generation: number; changedAt: number },
  ): Promise<void> => {
    await db
      .updateTable('entries')
      .set({ ...columns, generation: change.generation, changed_at: change.changedAt, updated_at: change.changedAt })
      .where('id', '=', id)
      .execute();
  };

  return {
    async listLive(versionId) {
      const rows = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('deleted', '=', 0)
        .orderBy('key')
        .execute();
      return rows.map(toRecord);
    },
    async getLive(versionId, id) {
      const row = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('id', '=', id)
        .where('deleted', '=', 0)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async getManyLive(versionId, ids) {
      const rows = await inChunks(ids, (slice) =>
        db
          .selectFrom('entries')
          .selectAll()
          .where('version_id', '=', versionId)
          .where('id', 'in', slice)
          .where('deleted', '=', 0)
          .execute(),
      );
      return rows.map(toRecord);
    },
    async findByKey(versionId, key) {
      const row = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('key', '=', key)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async findByKeys(versionId, keys) {
      const rows = await inChunks(keys, (slice) =>
        db.selectFrom('entries').selectAll().where('version_id', '=', versionId).where('key', 'in', slice).execute(),
      );
      return rows.map(toRecord);
    },
    async insert(e) {
      await db.insertInto('entries').values(toRow(e)).execute();
    },
    async insertMany(entries) {
      // Each row binds one value per column (15).
      await inChunks(
        entries,
        async (slice) => (await db.insertInto('entries').values(slice.map(toRow)).execute(), []),
        Math.floor(MAX_BOUND_VALUES / 15),
      );
    },
    async purge(...ids) {
      await inChunks(ids, async (slice) => (await db.deleteFrom('entries').where('id', 'in', slice).execute(), []));
    },
    setValue: (id, change) => applyChange(id, { raw_value: change.rawValue }, change),
    setMetadata: (id, change) =>
      applyChange(
        id,
        {
          name: change.name,
          description: change.description,
          group_name: change.groupName,
          group_description: change.groupDescription,
          enum_definition: change.enumDefinition,
          raw_value: change.rawValue,
        },
        change,
      ),
    markDeleted: (id, change) => applyChange(id, { raw_value: null, deleted: 1 }, change),
    async changedSince(versionId, afterMicros) {
      const rows = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('changed_at', '>', afterMicros)
        .orderBy('changed_at')
        .orderBy('key')
        .execute();
      return rows.map(toRecord);
    },
  };
}
