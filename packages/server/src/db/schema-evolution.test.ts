import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config/load-config.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { openDatabase, type Database, type Dialect } from './database.js';
import { migrationProvider } from './migrations.js';

interface Column {
  readonly dataType: string;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
}
interface Index {
  readonly table: string;
  readonly unique: boolean;
  readonly columns: readonly string[];
}
interface Schema {
  /** table → column → shape */
  readonly tables: Map<string, Map<string, Column>>;
  readonly indexes: Map<string, Index>;
}

const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/** A database of the kind, through the same configuration the server reads. */
async function openTestDatabase(kind: Dialect): Promise<{ database: Database; test: TestDatabase; dir?: string }> {
  if (kind === 'postgres') {
    const test = await createTestDatabase('postgres');
    return { database: openDatabase(configOf(test.args).database), test };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-schema-'));
  const test: TestDatabase = {
    name: 'sqlite',
    args: [`--Database:DataDir=${dir}`],
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
  return { database: openDatabase(configOf(test.args).database), test, dir };
}

function configOf(args: readonly string[]) {
  return loadConfig({ cwd: tmpdir(), env: {}, argv: ['--Authentication:Provider=Local', ...args] });
}

async function schemaOf(db: Kysely<unknown>, dialect: Dialect): Promise<Schema> {
  const tables = new Map<string, Map<string, Column>>();
  for (const table of await db.introspection.getTables()) {
    if (MIGRATION_TABLES.has(table.name)) continue;
    tables.set(
      table.name,
      new Map(
        table.columns.map((c) => [
          c.name,
          { dataType: c.dataType.toLowerCase(), nullable: c.isNullable, hasDefault: c.hasDefaultValue },
        ]),
      ),
    );
  }
  const rows =
    dialect === 'sqlite'
      ? await sql<{ table: string; name: string; unique: number; column: string }>`
          select m.name as "table", il.name as name, il."unique" as "unique", ii.name as "column"
          from sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii
          where m.type = 'table' order by il.name, ii.seqno`.execute(db)
      : await sql<{ table: string; name: string; unique: boolean; column: string }>`
          select t.relname as "table", i.relname as name, ix.indisunique as "unique", a.attname as "column"
          from pg_index ix
          join pg_class i on i.oid = ix.indexrelid
          join pg_class t on t.oid = ix.indrelid
          join pg_namespace n on n.oid = t.relnamespace
          join pg_attribute a on a.attrelid = t.oid and a.attnum = any(ix.indkey)
          where n.nspname = current_schema() order by i.relname, a.attnum`.execute(db);
  const indexes = new Map<string, Index>();
  for (const row of rows.rows) {
    if (MIGRATION_TABLES.has(row.table)) continue;
    const index = indexes.get(row.name) ?? { table: row.table, unique: Boolean(row.unique), columns: [] };
    indexes.set(row.name, { ...index, columns: [...index.columns, row.column] });
  }
  return { tables, indexes };
}

/**
 * What a migration may do so that the previous release keeps working on the migrated schema
 * (docs/operations.md, "Upgrades"): add tables, add columns that are nullable or have a default, add
 * indexes (unique ones only over columns it adds). It may not drop, rename or retype a column, make
 * one NOT NULL, or drop a table: those wait for a later release (contract).
 */
function breakingChanges(before: Schema, after: Schema): string[] {
  const problems: string[] = [];
  for (const [table, columns] of before.tables) {
    const now = after.tables.get(table);
    if (!now) {
      problems.push(`table ${table} was dropped or renamed`);
      continue;
    }
    for (const [name, column] of columns) {
      const current = now.get(name);
      if (!current) problems.push(`column ${table}.${name} was dropped or renamed`);
      else if (current.dataType !== column.dataType)
        problems.push(`column ${table}.${name} changed type ${column.dataType} → ${current.dataType}`);
      else if (column.nullable && !current.nullable) problems.push(`column ${table}.${name} became NOT NULL`);
    }
    for (const [name, column] of now) {
      if (!columns.has(name) && !column.nullable && !column.hasDefault) {
        problems.push(`column ${table}.${name} was added NOT NULL without a default: older releases cannot insert`);
      }
    }
  }
  for (const [name, index] of after.indexes) {
    const existingTable = before.tables.get(index.table);
    if (before.indexes.has(name) || !index.unique || !existingTable) continue;
    const oldColumns = index.columns.filter((column) => existingTable.has(column));
    if (oldColumns.length > 0) {
      problems.push(
        `unique index ${name} covers existing columns (${oldColumns.join(', ')}): older releases' writes may fail`,
      );
    }
  }
  return problems;
}

describe.each(databaseKinds)('schema migrations (%s)', (kind) => {
  it('each migration only adds, so a database migrated by release N+1 still serves release N', async () => {
    const { database, test } = await openTestDatabase(kind);
    try {
      const db = database.db as Kysely<unknown>;
      const migrator = new Migrator({ db, provider: migrationProvider(kind) });
      const names = Object.keys(await migrationProvider(kind).getMigrations()).sort();
      let before = await schemaOf(db, kind);
      for (const [position, name] of names.entries()) {
        const { error } = await migrator.migrateTo(name);
        expect(error).toBeUndefined();
        const after = await schemaOf(db, kind);
        // The initial schema has nothing before it to break.
        if (position > 0)
          expect({ migration: name, problems: breakingChanges(before, after) }).toEqual({
            migration: name,
            problems: [],
          });
        before = after;
      }
    } finally {
      await database.close();
      await test.drop();
    }
  });

  it('the check above notices a migration that would break the running release', async () => {
    const { database, test } = await openTestDatabase(kind);
    try {
      const db = database.db as Kysely<unknown>;
      await database.migrate();
      const before = await schemaOf(db, kind);
      await db.schema
        .alterTable('entries')
        .addColumn('required_now', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('entries').addColumn('new_flag', 'text').execute();
      await db.schema.createIndex('entries_key_only_uq').unique().on('entries').column('key').execute();
      await db.schema.createIndex('entries_new_flag_uq').unique().on('entries').column('new_flag').execute();
      await db.schema.alterTable('audit_logs').dropColumn('entry_key').execute();
      await db.schema.dropTable('change_log').execute();
      expect(breakingChanges(before, await schemaOf(db, kind))).toEqual([
        'column audit_logs.entry_key was dropped or renamed',
        'table change_log was dropped or renamed',
        "unique index entries_key_only_uq covers existing columns (key): older releases' writes may fail",
      ]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});

/** A migration of a later release, as the rule allows: a new table, a nullable column, an index. */
const nextRelease: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('future_table')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .execute();
    await db.schema.alterTable('entries').addColumn('future_note', 'text').execute();
    await db.schema.createIndex('entries_future_note_idx').on('entries').column('future_note').execute();
  },
};

function withNextRelease(kind: Dialect): MigrationProvider {
  return {
    getMigrations: async () => ({
      ...(await migrationProvider(kind).getMigrations()),
      '9999-next-release': nextRelease,
    }),
  };
}

describe.each(databaseKinds)('this release on a database a later release migrated (%s)', (kind) => {
  let server: TestServer;
  let test: TestDatabase;
  const warnings: string[] = [];

  beforeAll(async () => {
    const opened = await openTestDatabase(kind);
    test = opened.test;
    const { error } = await new Migrator({
      db: opened.database.db as Kysely<unknown>,
      provider: withNextRelease(kind),
    }).migrateToLatest();
    expect(error).toBeUndefined();
    await opened.database.close();
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          warnings.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
          done();
        },
      }),
    );
    server = await startTestServer({ database: test, deps: { logger } });
  });
  afterAll(async () => {
    await server?.close();
    await test?.drop();
  });

  it('starts (saying so) instead of refusing the migrations it does not know', () => {
    expect(server.app.started).toBe(true);
    expect(warnings).toContain(
      'The database was migrated by a newer release; this instance keeps using the schema it knows until it is replaced.',
    );
  });

  it('reads and writes as usual: services, versions, entries, values, audit', async () => {
    const admin = await server.admin();
    const service = await admin.post('/api/services', { name: 'rolling-upgrade' });
    expect(service.status).toBe(201);
    const version = await admin.post(`/api/configversions/${service.body.id}`, { versionLabel: '1.0.0' });
    expect(version.status).toBe(201);
    const base = `/api/configentries/${service.body.id}/${version.body.id}`;
    const entry = await admin.post(base, { key: 'Db:Timeout', valueType: 1, rawValue: '30' });
    expect(entry.status).toBe(201);
    const set = await admin.put(`${base}/set`, [
      { id: entry.body.id, rawValue: '45', generation: entry.body.generation },
    ]);
    expect(set.status).toBe(200);
    expect((await admin.get(base)).body).toEqual([expect.objectContaining({ key: 'Db:Timeout', rawValue: '45' })]);
    const audit = await admin.post('/api/auditlogs/search', { serviceId: service.body.id });
    expect(audit.body.entities).toHaveLength(4);
  });

  it('refuses a database whose migrations diverge from this release (unknown ones while known ones are missing)', async () => {
    const { database, test: other } = await openTestDatabase(kind);
    try {
      const names = Object.keys(await migrationProvider(kind).getMigrations()).sort();
      await new Migrator({ db: database.db as Kysely<unknown>, provider: withNextRelease(kind) }).migrateTo(names[2]!);
      await sql`insert into kysely_migration (name, timestamp) values ('9999-next-release', ${new Date().toISOString()})`.execute(
        database.db,
      );
      await expect(database.migrate()).rejects.toThrow(/not a successor of this one/);
    } finally {
      await database.close();
      await other.drop();
    }
  });
});
