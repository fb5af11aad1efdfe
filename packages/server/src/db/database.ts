import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../platform/config/app-config.js';
import { migrationProvider } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<DatabaseSchema>;
export type Tx = Transaction<DatabaseSchema>;

export interface Database {
  readonly dialect: Dialect;
  readonly db: Db;
  /** Runs the given function in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Called after every query with its duration; feeds the metrics. */
  onQuery?: (event: { durationMs: number; failed: boolean }) => void;
}

const INT8_OID = 20;

export async function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Promise<Database> {
  const dialect: Dialect = config.url ? 'postgres' : 'sqlite';
  const log = options.onQuery
    ? (event: LogEvent) => options.onQuery?.({ durationMs: event.queryDurationMillis, failed: event.level === 'error' })
    : undefined;

  let db: Db;
  if (config.url) {
    const pool = new pg.Pool({
      connectionString: config.url,
      application_name: 'realtime-config',
      max: 10,
      // Change times are BIGINT microseconds: they fit a JS number exactly (2^53 µs is year 2255).
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID
            ? (value: string) => Number(value)
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client that loses its connection emits 'error' on the pool; without a listener that
    // would crash the process. The next query gets a fresh connection.
    pool.on('error', () => undefined);
    db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
  } else {
    const file = config.dataDir === 'memory://' ? ':memory:' : sqliteFile(config.dataDir);
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: sqlite }), ...(log ? { log } : {}) });
  }

  const migrator = new Migrator({ db, provider: migrationProvider(dialect) });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    throw new Error('Database migration failed', { cause: error });
  }

  return {
    dialect,
    db,
    transaction: (fn) => db.transaction().execute(fn),
    ping: async () => {
      await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    },
    close: () => db.destroy(),
  };
}

function sqliteFile(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  return path.join(dataDir, 'realtime-config.db');
}

/** True when the error is a unique-constraint violation in either database. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
