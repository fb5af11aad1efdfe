import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, SQLITE_FILE_NAME } from './database.js';

/** A backup or restore that was refused or failed; nothing was changed. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export interface BackupResult {
  readonly file: string;
  readonly bytes: number;
  /** The schema migrations the copy has, newest last. */
  readonly migrations: readonly string[];
}

/** sqlite3_backup_step's page count: every remaining page in one step (the API's maximum). */
const ALL_PAGES = 0x7fffffff;

/**
 * An online, consistent copy of the embedded database while servers keep writing to it: SQLite's
 * backup API copies every page in one step under one read transaction (WAL lets writers go on).
 * The copy is checked, switched to a self-contained file (no WAL beside it), synced, and only then
 * renamed to `target`, so `target` is either the previous file or a complete backup.
 */
export async function backupSqlite(dataDir: string, target: string): Promise<BackupResult> {
  const source = path.join(dataDir, SQLITE_FILE_NAME);
  refuseForeignOwner(source);
  const targetDir = path.dirname(target);
  if (!isDirectory(targetDir)) throw new BackupError(`The folder of the backup file does not exist: ${targetDir}`);
  let db: SQLite.Database;
  try {
    db = new SQLite(source, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`There is no database to back up at ${source} (${describe(error)}).`);
  }
  const partial = path.join(targetDir, `.${path.basename(target)}.${randomBytes(4).toString('hex')}.partial`);
  try {
    // Created empty and private first: SQLite writes the copy into it (and gives its journal the
    // same mode), so no moment of the backup is readable by others, whatever the umask.
    closeSync(createPrivateFile(partial));
    db.pragma('busy_timeout = 5000');
    // The first step only starts the backup; the progress answer makes the next one copy everything.
    await db.backup(partial, { progress: () => ALL_PAGES });
    const migrations = checkedCopy(partial, 'DELETE');
    syncFile(partial);
    renameSync(partial, target);
    syncFile(targetDir);
    return { file: target, bytes: statSync(target).size, migrations };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error instanceof BackupError ? error : new BackupError(`The backup failed: ${describe(error)}`);
  } finally {
    db.close();
  }
}

/**
 * Puts a backup in place as the embedded database of `dataDir`, which must be missing or empty
 * (a non-empty folder is refused and left as it is). The backup is copied in, checked, and renamed
 * to the database file last; on any failure whatever was created is removed again.
 */
export function restoreSqlite(backupFile: string, dataDir: string): BackupResult {
  if (!isFile(backupFile)) throw new BackupError(`The backup file does not exist: ${backupFile}`);
  const existed = isDirectory(dataDir);
  if (existed) {
    const entries = readdirSync(dataDir);
    if (entries.length > 0) {
      throw new BackupError(
        `Database:DataDir ${dataDir} is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}): restore only into a missing or empty folder; stop the server and move the folder aside first. Nothing was changed.`,
      );
    }
  } else if (pathExists(dataDir)) {
    throw new BackupError(`Database:DataDir ${dataDir} exists and is not a folder. Nothing was changed.`);
  }
  refuseForeignOwner(existed ? dataDir : nearestExisting(dataDir));
  const target = path.join(dataDir, SQLITE_FILE_NAME);
  const partial = path.join(dataDir, `.restore-${randomBytes(4).toString('hex')}.partial`);
  try {
    if (mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined) {
      chmodSync(dataDir, PRIVATE_DIR_MODE);
    }
    copyPrivately(backupFile, partial);
    const migrations = checkedCopy(partial, 'WAL');
    syncFile(partial);
    renameSync(partial, target);
    syncFile(dataDir);
    return { file: target, bytes: statSync(target).size, migrations };
  } catch (error) {
    if (existed) {
      for (const entry of readdirSync(dataDir)) rmSync(path.join(dataDir, entry), { force: true });
    } else {
      rmSync(dataDir, { recursive: true, force: true });
    }
    throw error instanceof BackupError ? error : new BackupError(`The restore failed: ${describe(error)}`);
  }
}

/**
 * Opens a copy, checks that it is a sound database of this service and sets its journal mode;
 * returns its migrations. Closing the only connection removes its -wal and -shm files again.
 */
function checkedCopy(file: string, journalMode: 'DELETE' | 'WAL'): string[] {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { fileMustExist: true });
  } catch (error) {
    throw new BackupError(`The file is not a database (${describe(error)}).`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`The database is damaged: ${String(check)}`);
    const hasSchema = db
      .prepare("select count(*) as n from sqlite_master where type = 'table' and name = ?")
      .pluck()
      .get(DEFAULT_MIGRATION_TABLE);
    if (hasSchema !== 1)
      throw new BackupError('The file is not a Realtime Config database (it has no schema migrations).');
    db.pragma(`journal_mode = ${journalMode}`);
    return db.prepare(`select name from ${DEFAULT_MIGRATION_TABLE} order by name`).pluck().all() as string[];
  } catch (error) {
    throw error instanceof BackupError
      ? error
      : new BackupError(`The file is not a usable database (${describe(error)}).`);
  } finally {
    db.close();
  }
}

/**
 * As root, SQLite would create files beside the database (its -wal and -shm, a restored file)
 * owned by root, which the service's own user could then not open: such runs are refused.
 */
function refuseForeignOwner(file: string): void {
  if (process.getuid?.() !== 0 || !pathExists(file)) return;
  const owner = statSync(file).uid;
  if (owner !== 0) {
    throw new BackupError(
      `${file} belongs to the user with uid ${owner}: run this command as that user (for example sudo -u realtime-config …), so the files it creates stay usable by the server.`,
    );
  }
}

/** An empty file only its owner may read and write (0600, whatever the umask); fails if it exists. */
function createPrivateFile(file: string): number {
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Copies a file into a new private one (fs.copyFile would give the copy the mode of the source). */
function copyPrivately(source: string, target: string): void {
  const from = openSync(source, 'r');
  try {
    const to = createPrivateFile(target);
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      for (let read; (read = readSync(from, buffer, 0, buffer.length, null)) > 0;) {
        for (let written = 0; written < read;) written += writeSync(to, buffer, written, read - written);
      }
    } finally {
      closeSync(to);
    }
  } finally {
    closeSync(from);
  }
}

function nearestExisting(dir: string): string {
  let current = path.resolve(dir);
  while (!pathExists(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

function syncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function pathExists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(file: string): boolean {
  return pathExists(file) && statSync(file).isDirectory();
}

function isFile(file: string): boolean {
  return pathExists(file) && statSync(file).isFile();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
