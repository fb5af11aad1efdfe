import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { SecretKeys } from './core/index.js';
import type { AppConfig } from './platform/config/app-config.js';
import { createMasterKeyFile, newMasterKey, readMasterKeyFile, type MasterKey } from './platform/envelope-cipher.js';

/** The file the embedded database keeps its master key in when Secrets:MasterKeyFile is not set. */
export const EMBEDDED_KEY_FILE = 'secrets.key';

/**
 * The master keys of secret values, from the configuration: Secrets:MasterKeyFile, else (embedded
 * database only) `<DataDir>/secrets.key`, created at the first start; with PostgreSQL and no key
 * there is none and secrets are refused. A key file that cannot be read stops the start.
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
  if (config.secrets.masterKeyFile) return new SecretKeys(read(config.secrets.masterKeyFile), previous);
  if (config.database.url) return new SecretKeys(null, previous);
  // The in-memory database lives as long as the process, and so does its key.
  if (config.database.dataDir === 'memory://') return new SecretKeys(newMasterKey(), previous);
  const file = path.join(config.database.dataDir, EMBEDDED_KEY_FILE);
  if (existsSync(file)) return new SecretKeys(read(file), previous);
  mkdirSync(config.database.dataDir, { recursive: true });
  const created = createMasterKeyFile(file);
  logger.info(
    { file },
    'created the master key of secret values (mode 0600); back it up apart from the database: without it no secret can be read',
  );
  return new SecretKeys(created, previous);
}
