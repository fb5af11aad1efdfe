import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMasterKeyFile } from '../../server/src/platform/envelope-cipher.js';

/**
 * A new master key file (`Secrets:MasterKeyFile`) in a folder of its own, made as the server makes
 * one: for servers that hold secrets on PostgreSQL, where there is no data folder to make it in.
 */
export function newMasterKeyFile(): string {
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-key-')), 'master.key');
  createMasterKeyFile(keyFile);
  return keyFile;
}
