import { sql, type Kysely, type Selectable } from 'kysely';
import type { VersionRecord, VersionSize, VersionStore } from '../../core/index.js';
import type { Dialect } from '../database.js';
import type { DatabaseSchema, VersionsTable } from '../schema.js';

function toRecord(row: Selectable<VersionsTable>): VersionRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    versionLabel: row.version_label,
    description: row.description,
    protected: Number(row.is_protected) === 1,
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
          is_protected: version.protected ? 1 : 0,
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
        .set({
          version_label: fields.versionLabel,
          description: fields.description,
          is_protected: fields.protected ? 1 : 0,
          updated_at: updatedAt,
        })
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
        .returning(['last_change_ts', 'version_label', 'is_protected'])
        .executeTakeFirst();
      return row
        ? { timestamp: Number(row.last_change_ts), label: row.version_label, protected: Number(row.is_protected) === 1 }
        : undefined;
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
