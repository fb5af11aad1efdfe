import type { Kysely } from 'kysely';
import type { SettingsStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';

export function createSettingsStore(db: Kysely<DatabaseSchema>): SettingsStore {
  return {
    async getOrCreate(key, candidate) {
      await db
        .insertInto('settings')
        .values({ key, value: candidate })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
