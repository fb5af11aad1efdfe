import path from 'node:path';
import { BackupError, backupSqlite, restoreSqlite, type BackupResult } from '../db/sqlite-backup.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { masterKeyFileOf } from '../secret-keys.js';
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
  return report(
    io,
    'Backed up',
    () => backupSqlite(config.database.dataDir, path.resolve(cwd, file)),
    keyNote(
      config,
      (key) =>
        `keep a copy of ${key} for your backups, stored apart from them (anyone holding both reads every secret): a restore needs it, and the server refuses to start on a restored database without it`,
    ),
  );
}

/** `restore <file>`: a backup into a missing or empty data folder; a non-empty one is left untouched. */
export async function restore(config: AppConfig, file: string, cwd: string, io: CommandIo): Promise<ExitCode> {
  if (config.database.url) return refuse(io, PG_RESTORE);
  if (config.database.dataDir === 'memory://') return refuse(io, `${IN_MEMORY} restore.`);
  return report(
    io,
    'Restored',
    () => restoreSqlite(path.resolve(cwd, file), config.database.dataDir),
    keyNote(
      config,
      (key) =>
        `before starting the server, put the key file kept with it at ${key} (${config.secrets.masterKeyFile ? 'Secrets:MasterKeyFile' : 'or name it in Secrets:MasterKeyFile'}); a server without the key that sealed the database's values refuses to start`,
    ),
  );
}

/**
 * What `backup` and `restore` say about the master key of secret values, which is never in the
 * database nor in its backups (docs/operations.md, "Back up and restore").
 */
function keyNote(config: AppConfig, advice: (keyFile: string) => string): string | null {
  const keyFile = masterKeyFileOf(config);
  if (!keyFile) return null;
  const previous = config.secrets.previousKeyFiles.map((file) => path.resolve(file));
  const also =
    previous.length > 0
      ? ` Keep Secrets:PreviousKeyFiles (${previous.join(', ')}) as well until a rotation has finished.`
      : '';
  return `The backup holds no master key of secret values: ${advice(keyFile)}.${also}`;
}

function refuse(io: CommandIo, message: string): ExitCode {
  io.err(message);
  return EXIT.unusable;
}

async function report(
  io: CommandIo,
  done: string,
  work: () => BackupResult | Promise<BackupResult>,
  note: string | null,
): Promise<ExitCode> {
  try {
    const result = await work();
    io.out(`${done} ${result.file} (${result.bytes} bytes; schema at ${result.migrations.at(-1) ?? 'no migration'}).`);
    if (note) io.out(note);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    io.err(error.message);
    return EXIT.failed;
  }
}
