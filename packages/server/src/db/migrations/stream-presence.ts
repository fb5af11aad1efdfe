import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * The open change streams of every server instance on a shared database (PostgreSQL): each
 * instance writes its own rows and refreshes their heartbeat every few seconds; rows with an old
 * heartbeat belong to an instance that died. Only adds.
 */
export function streamPresenceMigration(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('stream_presence')
        .addColumn('server_instance', 'varchar(100)', (c) => c.notNull())
        .addColumn('stream_no', int64, (c) => c.notNull())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('version_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('instance_id', 'text')
        .addColumn('sdk', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('address', 'text')
        .addColumn('labels', 'text', (c) => c.notNull())
        .addColumn('connected_at', int64, (c) => c.notNull())
        .addColumn('resumed_from', int64, (c) => c.notNull())
        .addColumn('last_event', int64)
        .addColumn('heartbeat', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('stream_presence_pk', ['server_instance', 'stream_no'])
        .execute();
      await db.schema.createIndex('stream_presence_version_idx').on('stream_presence').column('version_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('stream_presence').execute();
    },
  };
}
