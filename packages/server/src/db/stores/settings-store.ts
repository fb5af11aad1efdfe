import type { Kysely } from 'kysely';
import type { SettingsStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';

export function createSettingsStore(db: Kysely<DatabaseSchema>): SettingsStore {
  const read = async (key: string) =>
    (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
  return {
    async getOrCreate(key, candidate) {
      // Read first: a value once made is only read, which a follower's read-only standby allows.
      const stored = await read(key);
      if (stored !== undefined) return stored;
      await db
        .insertInto('settings')
        .values({ key, value: candidate })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
      return row.value;
    },
    async all() {
      const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
      return new Map(rows.map((row) => [row.key, row.value]));
    },
    async replace(key, expected, value) {
      const result = await db
        .updateTable('settings')
        .set({ value })
        .where('key', '=', key)
        .where('value', '=', expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
