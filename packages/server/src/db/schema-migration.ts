import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely } from 'kysely';
import { translateDatabaseError } from './database-errors.js';
import type { Dialect } from './schema.js';
import { migrationProvider } from './migrations.js';

/** What `Database.migrate` did. */
export interface MigrationOutcome {
  /** Migrations applied now, in order. */
  readonly applied: readonly string[];
  /**
   * Migrations the database has that this release does not know: a newer release migrated it
   * during a rolling upgrade. Migrations only add (docs/operations.md, "Upgrades"), so this
   * release keeps working on the schema it knows until it is replaced.
   */
  readonly newer: readonly string[];
}

/**
 * Brings the schema up to this release's migrations. A database already migrated further by a
 * newer release is left as it is, instead of refusing to start (Kysely's own check), so an
 * instance of the previous release can still restart while instances are replaced one by one.
 */
export async function migrateSchema(db: Kysely<unknown>, dialect: Dialect): Promise<MigrationOutcome> {
  const provider = migrationProvider(dialect);
  const known = Object.keys(await provider.getMigrations());
  const before = await newerThan(db, known);
  if (before !== null) return { applied: [], newer: before };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    // A newer release may have migrated between the check above and the migration lock.
    const after = await newerThan(db, known).catch(() => null);
    if (after !== null) return { applied: [], newer: after };
    throw translateDatabaseError(new Error('Database migration failed', { cause: error }));
  }
  return { applied: (results ?? []).map((result) => result.migrationName), newer: [] };
}

/**
 * What the schema lacks of this release's migrations and what it has beyond them, changing nothing:
 * a follower's database is a read-only standby, migrated by the primary and replication.
 */
export async function schemaStatus(
  db: Kysely<unknown>,
  dialect: Dialect,
): Promise<{ readonly missing: readonly string[]; readonly newer: readonly string[] }> {
  const known = Object.keys(await migrationProvider(dialect).getMigrations());
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === DEFAULT_MIGRATION_TABLE)) return { missing: known, newer: [] };
  const rows = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  const applied = new Set(rows.rows.map((row) => row.name));
  return {
    missing: known.filter((name) => !applied.has(name)),
    newer: [...applied].filter((name) => !known.includes(name)).sort(),
  };
}

/**
 * The applied migrations unknown to this release when every known one is applied too; null when
 * there are none. Unknown ones beside missing known ones mean two diverging releases, which no
 * order of migrations can reconcile: that stops the start.
 */
async function newerThan(db: Kysely<unknown>, known: readonly string[]): Promise<string[] | null> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === DEFAULT_MIGRATION_TABLE)) return null;
  const rows = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  const applied = new Set(rows.rows.map((row) => row.name));
  const unknown = [...applied].filter((name) => !known.includes(name)).sort();
  if (unknown.length === 0) return null;
  const missing = known.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new Error(
      `The database has migrations this release does not know (${unknown.join(', ')}) but lacks some it has (${missing.join(', ')}): it was migrated by a release that is not a successor of this one.`,
    );
  }
  return unknown;
}
