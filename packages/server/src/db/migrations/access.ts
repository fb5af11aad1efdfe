import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * Access for teams and pipelines: a role per member (existing members become editors, what they
 * could do before), scopes per API key (existing keys keep reading and registering), protected
 * versions, personal access tokens, change requests and their approvals. Only adds.
 */
export function accessMigration(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('service_members')
        .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('editor'))
        .execute();
      await db.schema
        .alterTable('api_keys')
        .addColumn('scopes', 'varchar(100)', (c) => c.notNull().defaultTo('read register'))
        .execute();
      await db.schema
        .alterTable('versions')
        .addColumn('is_protected', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('personal_tokens')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('provider', 'varchar(16)', (c) => c.notNull())
        .addColumn('identity', 'text', (c) => c.notNull())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('token_prefix', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('expires_at', int64, (c) => c.notNull())
        .addColumn('last_used_at', int64)
        .addColumn('revoked_at', int64)
        .execute();
      await db.schema.createIndex('personal_tokens_user_idx').on('personal_tokens').column('user_id').execute();

      await db.schema
        .createTable('change_requests')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('version_id', 'varchar(36)', (c) => c.notNull().references('versions.id').onDelete('cascade'))
        .addColumn('title', 'varchar(200)', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('author_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('author_name', 'text')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('content_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('closed_by', 'varchar(320)')
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('change_requests_version_idx')
        .on('change_requests')
        .columns(['version_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('change_request_approvals')
        .addColumn('change_request_id', 'varchar(36)', (c) =>
          c.notNull().references('change_requests.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('user_name', 'text')
        .addColumn('content_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('approved_at', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('change_request_approvals_pk', ['change_request_id', 'user_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('change_request_approvals').execute();
      await db.schema.dropTable('change_requests').execute();
      await db.schema.dropTable('personal_tokens').execute();
      await db.schema.alterTable('versions').dropColumn('is_protected').execute();
      await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
      await db.schema.alterTable('service_members').dropColumn('role').execute();
    },
  };
}
