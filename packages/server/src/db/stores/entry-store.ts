import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { EntryRecord, EntryStore } from '../../core/index.js';
import type { DatabaseSchema, EntriesTable } from '../schema.js';
import { inChunks, MAX_BOUND_VALUES } from '../in-chunks.js';

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
