import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import {
  noMasterKey,
  UnreadableSecret,
  type EntryOverride,
  type EntryRecord,
  type EntryRollout,
  type EntrySchema,
  type EntryStore,
  type SecretCipher,
} from '../../core/index.js';
import type { DatabaseSchema, Dialect, EntriesTable } from '../schema.js';
import { inChunks } from '../in-chunks.js';
import { insertJsonRows, jsonRows, type JsonColumnType } from '../json-rows.js';

/** The columns of an entry row, as JSON rows read them. */
const ENTRY_COLUMNS: Readonly<Record<keyof EntriesTable, JsonColumnType>> = {
  id: 'text',
  version_id: 'text',
  key: 'text',
  name: 'text',
  raw_value: 'text',
  is_secret: 'integer',
  value_type: 'integer',
  enum_definition: 'text',
  description: 'text',
  group_name: 'text',
  group_description: 'text',
  generation: 'integer',
  created_at: 'bigint',
  updated_at: 'bigint',
  changed_at: 'bigint',
  deleted: 'integer',
  schema: 'text',
  overrides: 'text',
  rollout: 'text',
};

/**
 * A stored value as the application reads it: a secret's is opened; one that cannot be (altered, or
 * its master key is gone) reads as null and marks the entry unreadable, never as garbage.
 */
export function openedValue(
  cipher: SecretCipher,
  stored: string | null,
  isSecret: boolean,
): { rawValue: string | null; unreadable?: true } {
  if (!isSecret || stored === null) return { rawValue: stored };
  try {
    return { rawValue: cipher.open(stored) };
  } catch (error) {
    if (error instanceof UnreadableSecret) return { rawValue: null, unreadable: true };
    throw error;
  }
}

/** A value as it is stored: a secret's sealed. A secret needs a master key even without a value. */
function storedValue(cipher: SecretCipher, rawValue: string | null, isSecret: boolean): string | null {
  if (isSecret && !cipher.ready) throw noMasterKey();
  return isSecret && rawValue !== null ? cipher.seal(rawValue) : rawValue;
}

/** An override as stored: a secret's value sealed, as `sealedValue` (the rule of stored JSON, sealed-json.ts). */
type StoredOverride = { labels: Record<string, string>; rawValue: string | null; sealedValue?: string };

/**
 * The sealed text of each override read as unreadable (openedOverrides), by the override object
 * read: written back unchanged (a value set writes an entry's overrides again), it stays as it was
 * stored, never "no value", and opens again if the key that sealed it comes back.
 */
const unopened = new WeakMap<EntryOverride, string>();

/** Overrides as stored: JSON text, a secret's values sealed; null for none. */
export function storedOverrides(
  cipher: SecretCipher,
  overrides: readonly EntryOverride[],
  isSecret: boolean,
): string | null {
  if (overrides.length === 0) return null;
  const stored = overrides.map((o): StoredOverride => {
    const kept = isSecret ? unopened.get(o) : undefined;
    if (kept !== undefined) return { labels: { ...o.labels }, rawValue: null, sealedValue: kept };
    const value = storedValue(cipher, o.rawValue, isSecret);
    return isSecret && value !== null
      ? { labels: { ...o.labels }, rawValue: null, sealedValue: value }
      : { labels: { ...o.labels }, rawValue: o.rawValue };
  });
  return JSON.stringify(stored);
}

/** Overrides as the application reads them: a secret's opened, or unreadable as its value would be. */
export function openedOverrides(cipher: SecretCipher, text: string | null): EntryOverride[] {
  if (text === null) return [];
  return (JSON.parse(text) as StoredOverride[]).map((o) => {
    if (o.sealedValue === undefined) return { labels: o.labels, rawValue: o.rawValue };
    const opened: EntryOverride = { labels: o.labels, ...openedValue(cipher, o.sealedValue, true) };
    if (opened.unreadable) unopened.set(opened, o.sealedValue);
    return opened;
  });
}

/** A rollout slot as stored: a secret's new value sealed, as `sealedValue`. */
type StoredRollout = Omit<EntryRollout, 'unreadable'> & { sealedValue?: string };

/** An entry's rollout as stored: JSON text, a secret's new value sealed; null for none. */
export function storedRollout(cipher: SecretCipher, rollout: EntryRollout | null, isSecret: boolean): string | null {
  if (!rollout) return null;
  const { unreadable: _unreadable, ...slot } = rollout;
  const value = storedValue(cipher, slot.rawValue, isSecret);
  return JSON.stringify(isSecret && value !== null ? { ...slot, rawValue: null, sealedValue: value } : slot);
}

/** An entry's rollout as the application reads it: a secret's value opened, or unreadable. */
export function openedRollout(cipher: SecretCipher, text: string | null): EntryRollout | null {
  if (text === null) return null;
  const { sealedValue, ...slot } = JSON.parse(text) as StoredRollout;
  return sealedValue === undefined ? slot : { ...slot, ...openedValue(cipher, sealedValue, true) };
}

function toRecord(cipher: SecretCipher, row: Selectable<EntriesTable>): EntryRecord {
  const isSecret = Number(row.is_secret) === 1;
  return {
    id: row.id,
    versionId: row.version_id,
    key: row.key,
    name: row.name,
    ...openedValue(cipher, row.raw_value, isSecret),
    isSecret,
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
    schema: row.schema === null ? null : (JSON.parse(row.schema) as EntrySchema),
    overrides: openedOverrides(cipher, row.overrides),
    rollout: openedRollout(cipher, row.rollout),
  };
}

function toRow(cipher: SecretCipher, e: EntryRecord): Insertable<EntriesTable> {
  return {
    id: e.id,
    version_id: e.versionId,
    key: e.key,
    name: e.name,
    raw_value: storedValue(cipher, e.rawValue, e.isSecret),
    is_secret: e.isSecret ? 1 : 0,
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
    schema: e.schema === null ? null : JSON.stringify(e.schema),
    overrides: storedOverrides(cipher, e.overrides, e.isSecret),
    rollout: storedRollout(cipher, e.rollout ?? null, e.isSecret),
  };
}

export function createEntryStore(db: Kysely<DatabaseSchema>, dialect: Dialect, cipher: SecretCipher): EntryStore {
  const record = (row: Selectable<EntriesTable>) => toRecord(cipher, row);
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
      return rows.map(record);
    },
    async getLive(versionId, id) {
      const row = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('id', '=', id)
        .where('deleted', '=', 0)
        .executeTakeFirst();
      return row ? record(row) : undefined;
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
      return rows.map(record);
    },
    async findByKey(versionId, key) {
      const row = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('key', '=', key)
        .executeTakeFirst();
      return row ? record(row) : undefined;
    },
    async findByKeys(versionId, keys) {
      const rows = await inChunks(keys, (slice) =>
        db.selectFrom('entries').selectAll().where('version_id', '=', versionId).where('key', 'in', slice).execute(),
      );
      return rows.map(record);
    },
    async insert(e) {
      await db.insertInto('entries').values(toRow(cipher, e)).execute();
    },
    async insertMany(entries) {
      await insertJsonRows(
        db as Kysely<unknown>,
        dialect,
        'entries',
        entries.map((e) => toRow(cipher, e)),
        ENTRY_COLUMNS,
      );
    },
    async purge(...ids) {
      await inChunks(ids, async (slice) => (await db.deleteFrom('entries').where('id', 'in', slice).execute(), []));
    },
    async setValues(changes) {
      if (changes.length === 0) return;
      const rows = changes.map((c) => ({
        id: c.id,
        raw_value: storedValue(cipher, c.rawValue, c.isSecret),
        overrides: storedOverrides(cipher, c.overrides, c.isSecret),
        rollout: storedRollout(cipher, c.rollout, c.isSecret),
        generation: c.generation,
        changed_at: c.changedAt,
        keep_value: c.keepValue ? 1 : 0,
      }));
      const v = jsonRows(dialect, rows, {
        id: 'text',
        raw_value: 'text',
        overrides: 'text',
        rollout: 'text',
        generation: 'integer',
        changed_at: 'bigint',
        keep_value: 'integer',
      });
      await sql`update entries set raw_value = case when v.keep_value = 1 then entries.raw_value else v.raw_value end, overrides = v.overrides, rollout = v.rollout, generation = v.generation, changed_at = v.changed_at, updated_at = v.changed_at from ${v} where entries.id = v.id`.execute(
        db,
      );
    },
    async setRollouts(changes) {
      if (changes.length === 0) return;
      const v = jsonRows(
        dialect,
        changes.map((c) => ({
          id: c.id,
          rollout: storedRollout(cipher, c.rollout, c.isSecret),
          changed_at: c.changedAt,
        })),
        { id: 'text', rollout: 'text', changed_at: 'bigint' },
      );
      await sql`update entries set rollout = v.rollout, changed_at = v.changed_at from ${v} where entries.id = v.id`.execute(
        db,
      );
    },
    setMetadata: (id, change) =>
      applyChange(
        id,
        {
          name: change.name,
          description: change.description,
          group_name: change.groupName,
          group_description: change.groupDescription,
          enum_definition: change.enumDefinition,
          raw_value: storedValue(cipher, change.rawValue, change.isSecret),
          is_secret: change.isSecret ? 1 : 0,
          schema: change.schema === null ? null : JSON.stringify(change.schema),
          overrides: storedOverrides(cipher, change.overrides, change.isSecret),
        },
        change,
      ),
    setOverrides: (id, change) =>
      applyChange(id, { overrides: storedOverrides(cipher, change.overrides, change.isSecret) }, change),
    async markDeleted(changes) {
      if (changes.length === 0) return;
      const v = jsonRows(
        dialect,
        changes.map((c) => ({ id: c.id, generation: c.generation, changed_at: c.changedAt })),
        { id: 'text', generation: 'integer', changed_at: 'bigint' },
      );
      await sql`update entries set raw_value = null, overrides = null, rollout = null, deleted = 1, generation = v.generation, changed_at = v.changed_at, updated_at = v.changed_at from ${v} where entries.id = v.id`.execute(
        db,
      );
    },
    async changedSince(versionId, afterMicros) {
      const rows = await db
        .selectFrom('entries')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('changed_at', '>', afterMicros)
        .orderBy('changed_at')
        .orderBy('key')
        .execute();
      return rows.map(record);
    },
    async newestChanges(versionId) {
      const row = await db
        .selectFrom('entries')
        .select((eb) => [
          eb.fn.max('changed_at').as('all'),
          eb.fn.max(eb.case().when('is_secret', '=', 0).then(eb.ref('changed_at')).end()).as('public'),
        ])
        .where('version_id', '=', versionId)
        .executeTakeFirst();
      return { secrets: Number(row?.all ?? 0), public: Number(row?.public ?? 0) };
    },
  };
}
