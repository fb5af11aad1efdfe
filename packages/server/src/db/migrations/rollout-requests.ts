import type { Kysely, Migration } from 'kysely';

/**
 * A change request applied as a rollout (docs/rollouts.md, "Protected versions") keeps the id of
 * the rollout it started, so its answer and its page lead to it. Only adds.
 */
export function rolloutRequestsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('change_requests').addColumn('rollout_id', 'varchar(36)').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('change_requests').dropColumn('rollout_id').execute();
    },
  };
}
