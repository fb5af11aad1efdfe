import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * Validation (docs/validation.md): an entry's schema (JSON text, null for none), and the outside
 * validators of a service, whose signing secrets are sealed by the master key like webhooks'. Only adds.
 */
export function validationMigration(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('entries').addColumn('schema', 'text').execute();
      await db.schema
        .createTable('validators')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('validators_service_idx').on('validators').column('service_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('validators').execute();
      await db.schema.alterTable('entries').dropColumn('schema').execute();
    },
  };
}
