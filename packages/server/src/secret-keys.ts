import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { SecretKeys } from './core/index.js';
import type { AppConfig } from './platform/config/app-config.js';
import { createMasterKeyFile, newMasterKey, readMasterKeyFile, type MasterKey } from './platform/envelope-cipher.js';

/** The file the embedded database keeps its master key in when Secrets:MasterKeyFile is not set. */
export const EMBEDDED_KEY_FILE = 'secrets.key';

/**
 * The file of the current master key: Secrets:MasterKeyFile, else (embedded database on disk)
 * `<DataDir>/secrets.key`; null when there is none (PostgreSQL without the setting, or memory://).
 * What `backup` and `restore` name, so an operator keeps it with the backups.
 */
export function masterKeyFileOf(config: AppConfig): string | null {
  if (config.secrets.masterKeyFile) return path.resolve(config.secrets.masterKeyFile);
  if (config.database.url || config.database.dataDir === 'memory://') return null;
  return path.resolve(config.database.dataDir, EMBEDDED_KEY_FILE);
}

/**
 * The master keys of secret values, from the configuration: Secrets:MasterKeyFile, else (embedded
 * database only) `<DataDir>/secrets.key`; with PostgreSQL and no key there is none and secrets are
 * refused. A key file that cannot be read stops the start. A missing `<DataDir>/secrets.key` is
 * created by the start (`SecretKeys.load`), and only for a database that holds no sealed value.
 */
export function loadSecretKeys(config: AppConfig, logger: Logger): SecretKeys {
  const read = (file: string): MasterKey => {
    try {
      return readMasterKeyFile(file);
    } catch (error) {
      throw new Error(`The secrets master key cannot be read: ${(error as Error).message}`, { cause: error });
    }
  };
  const previous = config.secrets.previousKeyFiles.map(read);
  const previousNote = previous.length > 0 ? ` (and ${previous.length} key file(s) in Secrets:PreviousKeyFiles)` : '';
  if (config.secrets.masterKeyFile) {
    const current = read(config.secrets.masterKeyFile);
    return new SecretKeys(current, previous, {
      describe: `Secrets:MasterKeyFile is ${path.resolve(config.secrets.masterKeyFile)} (key ${current.id})${previousNote}: set it to the key file they were sealed with, or list that file in Secrets:PreviousKeyFiles to rotate away from it`,
    });
  }
  if (config.database.url) {
    return new SecretKeys(null, previous, {
      describe: `Secrets:MasterKeyFile is not set${previousNote}: set it to the key file they were sealed with`,
    });
  }
  // The in-memory database lives as long as the process, and so does its key.
  if (config.database.dataDir === 'memory://') return new SecretKeys(newMasterKey(), previous);
  const file = masterKeyFileOf(config) as string;
  if (existsSync(file)) {
    const current = read(file);
    return new SecretKeys(current, previous, {
      describe: `Secrets:MasterKeyFile is not set and ${file} holds key ${current.id}${previousNote}: put the key file they were sealed with there, or name it in Secrets:MasterKeyFile`,
    });
  }
  return new SecretKeys(null, previous, {
    describe: `Secrets:MasterKeyFile is not set and ${file} does not exist${previousNote}: put the key file they were sealed with there, or name it in Secrets:MasterKeyFile (no new key is made for a database that holds sealed values: it would open none of them)`,
    create: () => {
      const created = createMasterKeyFile(file);
      logger.info(
        { file },
        'created the master key of secret values (mode 0600); back it up apart from the database: without it no secret can be read',
      );
      return created;
    },
  });
}
