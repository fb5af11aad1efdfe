import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrationProvider } from '../db/migrations.js';
import { runServerCommand } from '@realtime-config/test-support/server-process';
import { createTestDatabase, postgresUrl } from '@realtime-config/test-support/test-databases';

const LOCAL = '--Authentication:Provider=Local';

async function migrationNames(): Promise<string[]> {
  return Object.keys(await migrationProvider('sqlite').getMigrations()).sort();
}

describe('realtime-config-server migrate', () => {
  it('creates the embedded database in a fresh folder with every migration, then finds nothing to do', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'rc-migrate-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const dataDir = path.join(folder, 'data');
    const first = await runServerCommand(['migrate', `--Database:DataDir=${dataDir}`, LOCAL]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const names = await migrationNames();
    expect(first.stdout).toContain(`applied ${names.length} migration(s): ${names.join(', ')}`);

    const file = path.join(dataDir, 'realtime-config.db');
    expect(existsSync(file)).toBe(true);
    const db = new SQLite(file, { readonly: true });
    try {
      expect(db.prepare('select name from kysely_migration order by name').pluck().all()).toEqual(names);
      expect(db.prepare("select count(*) from sqlite_master where name = 'entries'").pluck().get()).toBe(1);
    } finally {
      db.close();
    }

    const again = await runServerCommand([LOCAL, 'migrate', '--Database:DataDir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('the schema is up to date');
  });

  it.runIf(postgresUrl)('migrates a fresh PostgreSQL database', async () => {
    const database = await createTestDatabase('postgres');
    try {
      const result = await runServerCommand(['migrate', ...database.args, LOCAL]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^PostgreSQL database rc_test_\w+ on [^:]+:\d+: applied \d+ migration/);
      // The message names the database, never the URL with its credentials.
      expect(result.stdout).not.toContain('postgres://');
      const url = database.args[0]!.slice('--Database:Url='.length);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>('select name from kysely_migration order by name');
        expect(rows.map((row) => row.name)).toEqual(await migrationNames());
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
    }
  });

  it('fails with exit 1 and says why when the database cannot be reached', async () => {
    const result = await runServerCommand(['migrate', '--Database:Url=postgres://nobody@127.0.0.1:1/none', LOCAL]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Migration failed');
    expect(result.stderr).not.toContain('nobody@');
  });

  it('refuses a configuration it cannot load with exit 2, naming the key', async () => {
    const result = await runServerCommand(['migrate', '--Database:DataDir=', LOCAL]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Database:DataDir must not be empty');
  });
});
