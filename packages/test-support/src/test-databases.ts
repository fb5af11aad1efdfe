import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

/** A database a test suite runs against: the embedded one, or a fresh PostgreSQL database. */
export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres';
  /** Configuration arguments (`--Database:…=…`) that select this database. */
  readonly args: readonly string[];
  drop(): Promise<void>;
}

export const postgresUrl = process.env.TEST_DATABASE_URL ?? '';

/** Which kinds of database the suites run on: always SQLite; PostgreSQL when TEST_DATABASE_URL is set. */
export const databaseKinds: ReadonlyArray<'sqlite' | 'postgres'> = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * The one kind of database for suites whose subject does not reach storage (connection limits, the
 * sign-in providers' protocols, authorization across transports): PostgreSQL, the production
 * database, when there is one; else SQLite. Suites about what is stored run on `databaseKinds`.
 */
export const oneDatabaseKind: ReadonlyArray<'sqlite' | 'postgres'> = postgresUrl ? ['postgres'] : ['sqlite'];

if (!postgresUrl && !process.env.RC_PG_SKIP_NOTED) {
  process.env.RC_PG_SKIP_NOTED = '1';
  process.stdout.write('PostgreSQL tests skipped: TEST_DATABASE_URL is not set.\n');
}

/** Creates an empty database of the given kind, so suites never see each other's data. */
export async function createTestDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    return { name: 'sqlite', args: ['--Database:DataDir=memory://'], drop: () => Promise.resolve() };
  }
  const dbName = `rc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${dbName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${dbName}`;
  return {
    name: 'postgres',
    args: [`--Database:Url=${url.toString()}`],
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface ScannableDatabase {
  readonly db: TestDatabase;
  /** Every stored byte: SQLite's files (the key file beside them included), or `pg_dump --data-only`. */
  bytes(): Buffer;
  /**
   * The rows of a table as someone holding a copy of the database without its key file reads them:
   * SQLite from a copy of the database file and its -wal and -shm (taken while the server runs, as
   * a careless backup would), PostgreSQL as pg_dump reads them (a plain SELECT).
   */
  copiedRows(table: string): Promise<Array<Record<string, unknown>>>;
}

/** The embedded database's files in Database:DataDir (as db/database.ts names them). */
const SQLITE_FILES = ['realtime-config.db', 'realtime-config.db-wal', 'realtime-config.db-shm'];

/**
 * A database that outlives one server and whose stored bytes can be read afterwards, to check what a
 * copy of it would show: SQLite in a folder (every file in it), PostgreSQL as `pg_dump --data-only`.
 */
export async function scannableDatabase(kind: 'sqlite' | 'postgres'): Promise<ScannableDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'rc-scannable-'));
    return {
      db: { name: 'sqlite', args: [`--Database:DataDir=${dir}`], drop: () => Promise.resolve() },
      bytes: () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(path.join(dir, f)))),
      copiedRows: async (table) => {
        const copy = mkdtempSync(path.join(tmpdir(), 'rc-copy-'));
        try {
          const present = new Set(readdirSync(dir));
          for (const file of SQLITE_FILES)
            if (present.has(file)) copyFileSync(path.join(dir, file), path.join(copy, file));
          const db = new SQLite(path.join(copy, SQLITE_FILES[0] as string), { fileMustExist: true });
          try {
            return db.prepare(`select * from "${table}"`).all() as Array<Record<string, unknown>>;
          } finally {
            db.close();
          }
        } finally {
          rmSync(copy, { recursive: true, force: true });
        }
      },
    };
  }
  const db = await createTestDatabase('postgres');
  const url = (db.args[0] ?? '').replace('--Database:Url=', '');
  return {
    db,
    bytes: () => execFileSync('pg_dump', ['--data-only', url], { maxBuffer: 64 * 1024 * 1024 }),
    copiedRows: async (table) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<Record<string, unknown>>(`select * from "${table}"`)).rows;
      } finally {
        await client.end();
      }
    },
  };
}
