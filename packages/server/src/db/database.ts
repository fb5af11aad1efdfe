import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../platform/config/app-config.js';
import { translateDatabaseError } from './database-errors.js';
import { migrateSchema, schemaStatus, type MigrationOutcome } from './schema-migration.js';
import type { DatabaseSchema } from './schema.js';
import { withPreparedStatements } from './sqlite-statements.js';

export type { Dialect } from './schema.js';
import type { Dialect } from './schema.js';
export type Db = Kysely<DatabaseSchema>;
export type Tx = Transaction<DatabaseSchema>;

export interface Database {
  readonly dialect: Dialect;
  readonly db: Db;
  /** Creates or updates the schema; the first thing that needs the database to answer. */
  migrate(): Promise<MigrationOutcome>;
  /** This release's migrations the schema lacks, and those of a newer release it has; changes nothing. */
  schemaStatus(): Promise<{ readonly missing: readonly string[]; readonly newer: readonly string[] }>;
  /** Runs the given function in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Called after every query with its duration; feeds the metrics. */
  onQuery?: (event: { durationMs: number; failed: boolean }) => void;
  /** Told about connections that broke while idle or in use; they are replaced on the next query. */
  onConnectionError?: (error: Error) => void;
}

/** How long a query waits for a connection before it fails (and the request answers 503). */
const CONNECT_TIMEOUT_MS = 5000;

const INT8_OID = 20;

/**
 * Opens the database without talking to it (PostgreSQL connects on first use), so the server can
 * start while the database is still down; `migrate` is the first call that needs it.
 */
export function openDatabase(
  config: Pick<DatabaseConfig, 'url' | 'dataDir'>,
  options: OpenDatabaseOptions = {},
): Database {
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
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // Change times are BIGINT microseconds: they fit a JS number exactly (2^53 µs is year 2255).
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID
            ? (value: string) => Number(value)
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // A client whose connection dies (restart, failover, pg_terminate_backend) emits 'error': on
    // the pool while idle, on the client itself while checked out. Without a listener either would
    // crash the process; the query in flight fails, and the next one gets a fresh connection.
    const onError = (error: Error): void => options.onConnectionError?.(error);
    pool.on('error', onError);
    pool.on('connect', (client) => client.on('error', onError));
    db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
  } else {
    refuseUnsupportedNodeForSqlite();
    const file = config.dataDir === 'memory://' ? ':memory:' : sqliteFile(config.dataDir);
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Deleted content is overwritten with zeros: a value that turned secret leaves no plaintext behind.
    sqlite.pragma('secure_delete = ON');
    db = new Kysely<DatabaseSchema>({
      dialect: new SqliteDialect({ database: withPreparedStatements(sqlite) }),
      ...(log ? { log } : {}),
    });
  }

  return {
    dialect,
    db,
    // A database still down answers UNAVAILABLE, which start-up retries (docs/operations.md).
    migrate: () =>
      migrateSchema(db as Kysely<unknown>, dialect).catch((error: unknown) => {
        throw translateDatabaseError(error);
      }),
    schemaStatus: () =>
      schemaStatus(db as Kysely<unknown>, dialect).catch((error: unknown) => {
        throw translateDatabaseError(error);
      }),
    transaction: (fn) => db.transaction().execute(fn),
    ping: async () => {
      await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    },
    close: () => db.destroy(),
  };
}

/**
 * better-sqlite3 12 aborts the process on Node 24 and later (its statement finalizer trips a check
 * in node::RemoveEnvironmentCleanupHook during garbage collection); version 13, which fixes it,
 * needs Node 22. Until the server moves to it (ADR 0007), the embedded database refuses to start
 * there with a clear message instead of crashing at a random moment.
 */
function refuseUnsupportedNodeForSqlite(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 24) {
    throw new Error(
      `The embedded database does not run on Node ${process.versions.node}: use Node 20 or 22 (see docs/adr/0007-node-versions.md), or PostgreSQL (Database:Url).`,
    );
  }
}

/** The embedded database's file inside Database:DataDir (with its `-wal` and `-shm` beside it). */
export const SQLITE_FILE_NAME = 'realtime-config.db';

/** Owner only: the data folder, and every file that holds the database or its master key. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The data folder (created 0700) and its database file (0600), whatever the umask: SQLite gives
 * the -wal, -shm and journal files it creates the mode of the database file, so they are private
 * too. Files an earlier release left readable by others are made private; a file of another owner
 * is left as it is (the process could not open it for writing anyway).
 */
function sqliteFile(dataDir: string): string {
  if (mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined) {
    chmodSync(dataDir, PRIVATE_DIR_MODE);
  }
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const each of [file, `${file}-wal`, `${file}-shm`]) makePrivate(each);
  return file;
}

/** chmod 0600 a file of ours; a missing file or one of another owner is left alone. */
export function makePrivate(file: string): void {
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}
