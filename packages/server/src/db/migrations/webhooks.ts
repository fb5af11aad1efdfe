import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * Webhooks of a service and their outbox: a delivery row is written in the transaction of the change
 * it reports, and a dispatcher sends it after the commit. Only adds.
 */
export function webhooksMigration(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('event_types', 'text')
        .addColumn('version_ids', 'text')
        .addColumn('key_prefix', 'varchar(512)')
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhooks_service_idx').on('webhooks').column('service_id').execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('num', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('webhook_id', 'varchar(36)', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('event_type', 'varchar(32)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', int64)
        .addColumn('lease_until', int64)
        .addColumn('redelivery', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_webhook_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'num'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('webhook_deliveries').execute();
      await db.schema.dropTable('webhooks').execute();
    },
  };
}
