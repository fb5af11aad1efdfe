import { openDatabase, type Database } from '../../server/src/db/database.js';
import { createTestDatabase } from './test-databases.js';

/** A fresh database opened as the server opens it, for suites that test the storage itself. */
export interface OpenedTestDatabase {
  readonly database: Database;
  /** Closes the connections and drops the database. */
  close(): Promise<void>;
}

/** An empty database of the given kind, opened, and migrated unless `migrate` is false. */
export async function openTestDatabase(
  kind: 'sqlite' | 'postgres',
  options: { readonly migrate?: boolean } = {},
): Promise<OpenedTestDatabase> {
  const testDatabase = await createTestDatabase(kind);
  const url = testDatabase.args.find((a) => a.startsWith('--Database:Url='))?.slice('--Database:Url='.length);
  const database = openDatabase({ url: url ?? null, dataDir: 'memory://' });
  if (options.migrate !== false) await database.migrate();
  return {
    database,
    async close() {
      await database.close();
      await testDatabase.drop();
    },
  };
}
