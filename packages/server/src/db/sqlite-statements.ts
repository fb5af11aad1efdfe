import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept prepared; the oldest unused one is finalized beyond this. */
const CAPACITY = 500;

/**
 * The embedded database as Kysely's SQLite dialect sees it, with prepared statements kept and reused.
 * Kysely prepares every query anew; preparing cost more than running the statements of a value set
 * (benchmarks: a third of the database time). The cache is bounded (least recently used statements
 * go), so queries whose SQL varies (IN lists of any length) cannot grow it without end. A statement
 * still iterating a result is busy and cannot run twice: then a fresh one is prepared.
 */
export function withPreparedStatements(sqlite: SQLite.Database, capacity = CAPACITY): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      const kept = statements.get(sql);
      if (kept && !kept.busy) {
        // Map order is insertion order: moving it to the end keeps the least recently used first.
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = sqlite.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      return statement;
    },
    close(): void {
      statements.clear();
      sqlite.close();
    },
  };
}
