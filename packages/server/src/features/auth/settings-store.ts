import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.js';

/** Values every instance shares through the database (the cookie-signing secret). */
export interface SettingsStore {
  /** The stored value of the key; when there is none yet, `candidate` is stored and returned (first writer wins). */
  getOrCreate(key: string, candidate: string): Promise<string>;
}

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
