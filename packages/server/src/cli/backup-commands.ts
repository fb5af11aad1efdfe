import path from 'node:path';
import { BackupError, backupSqlite, restoreSqlite, type BackupResult } from '../db/sqlite-backup.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { EXIT, type CommandIo, type ExitCode } from './command-io.js';

const PG_BACKUP =
  'backup copies the embedded database; this configuration uses PostgreSQL (Database:Url). Back it up with pg_dump, for example: pg_dump --format=custom --file=realtime-config.dump "<Database:Url>"';
const PG_RESTORE =
  'restore puts back a backup of the embedded database; this configuration uses PostgreSQL (Database:Url). Restore a pg_dump file with pg_restore into an empty database, for example: pg_restore --no-owner --dbname="<Database:Url>" realtime-config.dump';
const IN_MEMORY = 'Database:DataDir is memory://: there is no database on disk for';

/** `backup <file>`: an online, consistent copy of the embedded database, also while servers run. */
export async function backup(config: AppConfig, file: string, cwd: string, io: CommandIo): Promise<ExitCode> {
  if (config.database.url) return refuse(io, PG_BACKUP);
  if (config.database.dataDir === 'memory://') return refuse(io, `${IN_MEMORY} backup.`);
  return report(io, 'Backed up', () => backupSqlite(config.database.dataDir, path.resolve(cwd, file)));
}

/** `restore <file>`: a backup into a missing or empty data folder; a non-empty one is left untouched. */
export async function restore(config: AppConfig, file: string, cwd: string, io: CommandIo): Promise<ExitCode> {
  if (config.database.url) return refuse(io, PG_RESTORE);
  if (config.database.dataDir === 'memory://') return refuse(io, `${IN_MEMORY} restore.`);
  return report(io, 'Restored', async () => restoreSqlite(path.resolve(cwd, file), config.database.dataDir));
}

function refuse(io: CommandIo, message: string): ExitCode {
  io.err(message);
  return EXIT.unusable;
}

async function report(io: CommandIo, done: string, work: () => Promise<BackupResult>): Promise<ExitCode> {
  try {
    const result = await work();
    io.out(`${done} ${result.file} (${result.bytes} bytes; schema at ${result.migrations.at(-1) ?? 'no migration'}).`);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    io.err(error.message);
    return EXIT.failed;
  }
}
