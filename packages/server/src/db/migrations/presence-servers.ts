import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * One heartbeat row per server instance sharing the database, instead of a heartbeat on every
 * stream's row: refreshing 10,000 rows every two seconds per instance was 5,000 row updates a
 * second of dead tuples and WAL for one fact. `stream_presence.heartbeat` stays for instances of
 * the previous release during a rolling upgrade (see the presence store). Only adds.
 */
export function presenceServersMigration(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('presence_servers')
        .addColumn('server_instance', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('heartbeat', int64, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('stream_presence_server_idx')
        .on('stream_presence')
        .column('server_instance')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('stream_presence_server_idx').execute();
      await db.schema.dropTable('presence_servers').execute();
    },
  };
}
