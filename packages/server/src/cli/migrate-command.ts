import { openDatabase } from '../db/database.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { describeError, EXIT, type CommandIo, type ExitCode } from './command-io.js';
import { describeDatabase } from './describe-database.js';

/** Applies the schema migrations this release has to the configured database, then exits. */
export async function migrate(config: AppConfig, io: CommandIo): Promise<ExitCode> {
  const database = openDatabase(config.database);
  try {
    const { applied, newer } = await database.migrate();
    const where = describeDatabase(config);
    if (newer.length > 0) {
      io.out(`${where} was migrated by a newer release (${newer.join(', ')}); nothing to do.`);
    } else if (applied.length > 0) {
      io.out(`${where}: applied ${applied.length} migration(s): ${applied.join(', ')}.`);
    } else {
      io.out(`${where}: the schema is up to date.`);
    }
    return EXIT.ok;
  } catch (error) {
    io.err(`Migration failed: ${describeError(error)}`);
    return EXIT.failed;
  } finally {
    await database.close();
  }
}
