import type { Kysely, Migration } from 'kysely';

/**
 * Whether each stream of the presence table receives secret entries, so that every instance judges
 * the streams of the others "up to date" against the newest change they may receive (a stream
 * without secrets is not behind after a secret changed). Nullable: instances of the previous
 * release write rows without it, which count against every change. Only adds.
 */
export function streamAudienceMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('stream_presence').addColumn('audience', 'varchar(10)').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('stream_presence').dropColumn('audience').execute();
    },
  };
}
