import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from '../../server/src/db/schema.js';

/** An entry written straight into the `entries` table, past every rule of the server. */
export interface PlantedEntry {
  readonly key: string;
  readonly valueType: number;
  readonly rawValue: string | null;
}

/**
 * Inserts entries into a version without the server: keys stored before a rule refused them (such as
 * the reserved segments `__proto__`, `constructor` and `prototype`). The server's snapshots do not
 * hear of them; exports, compares and imports read the table.
 */
export async function plantEntries(
  db: Kysely<DatabaseSchema>,
  versionId: string,
  entries: readonly PlantedEntry[],
): Promise<void> {
  const now = Date.now() * 1000;
  await db
    .insertInto('entries')
    .values(
      entries.map((e) => ({
        id: randomUUID(),
        version_id: versionId,
        key: e.key,
        name: e.key,
        raw_value: e.rawValue,
        value_type: e.valueType,
        enum_definition: null,
        description: null,
        group_name: null,
        group_description: null,
        generation: 1,
        created_at: now,
        updated_at: now,
        changed_at: now,
        deleted: 0,
      })),
    )
    .execute();
}

/** A connection of its own to the database of a server running in another process. */
export function connectTo(database: { sqliteFile: string } | { url: string }): Kysely<DatabaseSchema> {
  return 'url' in database
    ? new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) })
    : new Kysely({ dialect: new SqliteDialect({ database: new SQLite(database.sqliteFile) }) });
}
