import type { Kysely, Migration } from 'kysely';

/**
 * Targeting (docs/targeting.md): an entry's overrides by label, as JSON text (null for none); a
 * secret's override values are sealed inside it like its value. Only adds.
 */
export function overridesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('entries').addColumn('overrides', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('entries').dropColumn('overrides').execute();
    },
  };
}
