import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * Secret entries: `entries.is_secret` (1 for a secret, whose `raw_value` then holds the sealed value).
 * The sealed copies elsewhere (audit `changes`, change requests, the change log) say so in their JSON.
 */
export function secretsMigration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('entries')
        .addColumn('is_secret', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('entries').dropColumn('is_secret').execute();
    },
  };
}
