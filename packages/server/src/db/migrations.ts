import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { accessMigration } from './migrations/access.js';
import { changeLogTransactionsMigration } from './migrations/change-log-transactions.js';
import { hashedSessionIdsMigration } from './migrations/hashed-session-ids.js';
import { secretsMigration } from './migrations/secrets.js';
import { overridesMigration } from './migrations/overrides.js';
import { rolloutRequestsMigration } from './migrations/rollout-requests.js';
import { rolloutsMigration } from './migrations/rollouts.js';
import { presenceServersMigration } from './migrations/presence-servers.js';
import { reviewAuthorsMigration } from './migrations/review-authors.js';
import { streamAudienceMigration } from './migrations/stream-audience.js';
import { streamPresenceMigration } from './migrations/stream-presence.js';
import { validationMigration } from './migrations/validation.js';
import { webhooksMigration } from './migrations/webhooks.js';
import type { Dialect } from './schema.js';
import { serviceNameKey } from './service-name-key.js';

/**
 * Migrations live in code so the compiled server carries them. Both dialects share one definition;
 * the few differences (auto-increment, 64-bit integers) are chosen by dialect.
 *
 * Expand, then contract: a migration may only add (tables; columns that are nullable or have a
 * default; indexes, unique ones only over columns it adds), because instances of the previous
 * release keep running on the migrated database until they are replaced one by one. Dropping,
 * renaming, retyping or tightening what the previous release uses waits for the release after the
 * one that stopped using it (docs/operations.md, "Upgrades"; schema-evolution.test.ts checks it).
 */
function initialSchema(dialect: Dialect): Migration {
  // BIGINT in PostgreSQL; SQLite's INTEGER is already 64-bit.
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('services')
        .addColumn('num', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('repository_url', 'text')
        .addColumn('contact_email', 'text')
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('service_members')
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('user_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('added_at', int64, (c) => c.notNull())
        .addColumn('added_by', 'text')
        .addPrimaryKeyConstraint('service_members_pk', ['service_id', 'user_id'])
        .execute();

      await db.schema
        .createTable('versions')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('version_label', 'varchar(200)', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addColumn('last_change_ts', int64, (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('versions_service_label_uq', ['service_id', 'version_label'])
        .execute();

      await db.schema
        .createTable('entries')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('version_id', 'varchar(36)', (c) => c.notNull().references('versions.id').onDelete('cascade'))
        .addColumn('key', 'varchar(512)', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('raw_value', 'text')
        .addColumn('value_type', 'integer', (c) => c.notNull())
        .addColumn('enum_definition', 'text')
        .addColumn('description', 'text')
        .addColumn('group_name', 'text')
        .addColumn('group_description', 'text')
        .addColumn('generation', 'integer', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .addColumn('changed_at', int64, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('entries_version_key_uq', ['version_id', 'key'])
        .execute();
      await db.schema
        .createIndex('entries_version_changed_idx')
        .on('entries')
        .columns(['version_id', 'changed_at'])
        .execute();

      await db.schema
        .createTable('audit_logs')
        .addColumn('num', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        // No foreign key: the audit trail of a service outlives the service.
        .addColumn('service_id', 'varchar(36)')
        .addColumn('entity_type', 'varchar(20)', (c) => c.notNull())
        .addColumn('entity_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('action', 'varchar(20)', (c) => c.notNull())
        .addColumn('user_id', 'text')
        .addColumn('user_name', 'text')
        .addColumn('timestamp', int64, (c) => c.notNull())
        .addColumn('changes', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_logs_service_idx').on('audit_logs').columns(['service_id', 'num']).execute();

      await db.schema
        .createTable('users')
        .addColumn('username', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'varchar(20)', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('sid', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('expires_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'settings',
        'sessions',
        'users',
        'audit_logs',
        'entries',
        'versions',
        'service_members',
        'services',
      ]) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  };
}

/**
 * Every committed change of a version, as the change feed announced it (PostgreSQL): an instance
 * whose LISTEN connection dropped replays what it missed from here, exactly and in order. Also
 * holds the payloads too large for a NOTIFY (8000 bytes). Rows are purged after a retention period.
 */
function changeLog(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('change_log')
        .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        // No foreign key: the deletion of a version is itself a change to replay.
        .addColumn('version_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('ts', int64, (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('change_log_version_ts_idx').on('change_log').columns(['version_id', 'ts']).execute();
      await db.schema.createIndex('change_log_created_idx').on('change_log').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('change_log').execute();
    },
  };
}

/** API keys for machine access to gRPC: one service each, stored as a SHA-256 hash of the key. */
function apiKeys(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull().references('services.id').onDelete('cascade'))
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        // Hex SHA-256 of the whole key: keys are long random secrets, so a fast hash is enough.
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
        // The first characters of the key, shown in lists so people can tell keys apart.
        .addColumn('key_prefix', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('last_used_at', int64)
        .addColumn('revoked_at', int64)
        .execute();
      await db.schema.createIndex('api_keys_service_idx').on('api_keys').column('service_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('api_keys').execute();
    },
  };
}

/**
 * SAML state shared by every instance: the ids of the authentication requests we sent (a response
 * must answer one of them, once) and the ids of assertions already accepted (never twice).
 */
function samlState(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('saml_requests')
        .addColumn('id', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('created_at', int64, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('saml_assertions')
        .addColumn('id', 'varchar(200)', (c) => c.primaryKey())
        // Kept until the assertion could no longer be valid anyway (its NotOnOrAfter).
        .addColumn('expires_at', int64, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('saml_assertions').execute();
      await db.schema.dropTable('saml_requests').execute();
    },
  };
}

/**
 * Local accounts remember when their password last changed (sessions signed in before that end) and
 * whether the seeded default password must still be changed. Service names become unique regardless
 * of case; names that already collide keep their first holder and the others gain ` (num)`.
 */
function accountStateAndUniqueServiceNames(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('users')
        .addColumn('password_changed_at', int64, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update users set password_changed_at = created_at`.execute(db);

      await db.schema.alterTable('services').addColumn('name_key', 'varchar(200)').execute();
      const rows = await sql<{ num: number; name: string }>`select num, name from services order by num`.execute(db);
      const taken = new Set<string>();
      for (const row of rows.rows) {
        let name = row.name;
        if (taken.has(serviceNameKey(name))) name = `${name.slice(0, 180)} (${row.num})`;
        taken.add(serviceNameKey(name));
        await sql`update services set name = ${name}, name_key = ${serviceNameKey(name)} where num = ${row.num}`.execute(
          db,
        );
      }
      await sql`create unique index services_name_key_uq on services (name_key)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index services_name_key_uq`.execute(db);
      await db.schema.alterTable('services').dropColumn('name_key').execute();
      await db.schema.alterTable('users').dropColumn('must_change_password').execute();
      await db.schema.alterTable('users').dropColumn('password_changed_at').execute();
    },
  };
}

/**
 * Entry audit records carry their version and key as columns, so the history of an entry and the
 * state of a version at any time (restore) are indexed reads. Existing records are filled in from
 * their JSON and from the entries (tombstones included); a record whose entry was purged (deleted,
 * then created again) keeps no version and stays out of restores.
 */
function auditEntryColumns(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('audit_logs').addColumn('version_id', 'varchar(36)').execute();
      await db.schema.alterTable('audit_logs').addColumn('entry_key', 'varchar(512)').execute();
      for (let after = 0; ;) {
        const rows = await sql<{ num: number; changes: string; version_id: string | null }>`
          select a.num, a.changes, e.version_id from audit_logs a left join entries e on e.id = a.entity_id
          where a.entity_type = 'Entry' and a.num > ${after} order by a.num limit 500`.execute(db);
        if (rows.rows.length === 0) break;
        for (const row of rows.rows) {
          const changes = JSON.parse(row.changes) as { before?: { key?: string }; after?: { key?: string } };
          const key = changes.after?.key ?? changes.before?.key ?? null;
          await sql`update audit_logs set version_id = ${row.version_id}, entry_key = ${key} where num = ${row.num}`.execute(
            db,
          );
          after = Number(row.num);
        }
      }
      await db.schema
        .createIndex('audit_logs_version_key_idx')
        .on('audit_logs')
        .columns(['version_id', 'num'])
        .execute();
      await db.schema.createIndex('audit_logs_entity_idx').on('audit_logs').columns(['entity_id', 'num']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('audit_logs_entity_idx').execute();
      await db.schema.dropIndex('audit_logs_version_key_idx').execute();
      await db.schema.alterTable('audit_logs').dropColumn('entry_key').execute();
      await db.schema.alterTable('audit_logs').dropColumn('version_id').execute();
    },
  };
}

/**
 * Each version keeps its size (live entries, UTF-8 bytes of their texts) as counters that every write
 * updates in its own transaction, so the caps (Versions:MaxEntries, Versions:MaxBytes) cost one row
 * update instead of a sum over the version. Existing versions are counted once here.
 */
function versionSize(dialect: Dialect): Migration {
  const int64 = dialect === 'postgres' ? 'bigint' : 'integer';
  // UTF-8 bytes of a text column: PostgreSQL databases are UTF-8; SQLite stores text as UTF-8 by default.
  const bytes = (column: string) =>
    dialect === 'postgres' ? `coalesce(octet_length(${column}), 0)` : `coalesce(length(cast(${column} as blob)), 0)`;
  const textBytes = ENTRY_TEXT_COLUMNS.map(bytes).join(' + ');
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('versions')
        .addColumn('entry_count', int64, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('versions')
        .addColumn('entry_bytes', int64, (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update versions set
        entry_count = (select count(*) from entries e where e.version_id = versions.id and e.deleted = 0),
        entry_bytes = (select coalesce(sum(${sql.raw(textBytes)}), 0) from entries e
                       where e.version_id = versions.id and e.deleted = 0)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('versions').dropColumn('entry_bytes').execute();
      await db.schema.alterTable('versions').dropColumn('entry_count').execute();
    },
  };
}

/**
 * The texts of an entry that counted toward its version's size when the counters were introduced, as
 * `entryTextBytes` counts them (it counts the schema too, a later column, null on every row then).
 */
const ENTRY_TEXT_COLUMNS = [
  'key',
  'raw_value',
  'name',
  'description',
  'group_name',
  'group_description',
  'enum_definition',
];

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    getMigrations: () =>
      Promise.resolve({
        '0001-initial-schema': initialSchema(dialect),
        '0002-change-log': changeLog(dialect),
        '0003-api-keys': apiKeys(dialect),
        '0004-saml-state': samlState(dialect),
        '0005-account-state-unique-service-names': accountStateAndUniqueServiceNames(dialect),
        '0006-audit-entry-columns': auditEntryColumns(),
        '0007-version-size': versionSize(dialect),
        '0008-access': accessMigration(dialect),
        '0009-stream-presence': streamPresenceMigration(dialect),
        '0010-secrets': secretsMigration(dialect),
        '0011-webhooks': webhooksMigration(dialect),
        '0012-presence-servers': presenceServersMigration(dialect),
        '0013-review-authors': reviewAuthorsMigration(),
        '0014-hashed-session-ids': hashedSessionIdsMigration(),
        '0015-stream-audience': streamAudienceMigration(),
        '0016-change-log-transactions': changeLogTransactionsMigration(dialect),
        '0017-validation': validationMigration(dialect),
        '0018-overrides': overridesMigration(),
        '0019-rollouts': rolloutsMigration(dialect),
        '0020-rollout-requests': rolloutRequestsMigration(),
      }),
  };
}
