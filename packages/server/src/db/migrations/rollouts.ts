import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * Rollouts (docs/rollouts.md): the rollouts of each version, their progress kept here so that any
 * server instance continues them, and each entry's running rollout slot (JSON text, a secret's new
 * value sealed inside it like its value). Only adds.
 */
export function rolloutsMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('entries').addColumn('rollout', 'text').execute();
      await db.schema
        .createTable('rollouts')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('version_id', 'varchar(36)', (c) => c.notNull().references('versions.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        // [{id, key, rawValue | sealedValue, isSecret, generation}]: the entries, their new values and generations at creation.
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('steps', 'text', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('step_seconds', 'integer', (c) => c.notNull())
        .addColumn('bake_seconds', 'integer', (c) => c.notNull())
        .addColumn('start_at', bigint, (c) => c.notNull())
        // When the current step started (µs); null before the first.
        .addColumn('step_started_at', bigint)
        // When the scheduler acts next (µs): the next step, the end of baking; null when paused or ended.
        .addColumn('next_at', bigint)
        .addColumn('match', 'text', (c) => c.notNull())
        .addColumn('rollback', 'text', (c) => c.notNull())
        // {"in":[instance ids that received the new values],"gone":{id: since µs}} (automatic rollback).
        .addColumn('received', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addColumn('reason', 'text')
        .execute();
      await db.schema.createIndex('rollouts_version').on('rollouts').columns(['version_id', 'created_at']).execute();
      await db.schema.createIndex('rollouts_due').on('rollouts').columns(['status', 'next_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('rollouts').execute();
      await db.schema.alterTable('entries').dropColumn('rollout').execute();
    },
  };
}
