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

/**
 * A sealed value (dot-separated, its ciphertext in the fifth part) with one bit of the ciphertext
 * flipped: what an alteration at rest looks like. The server can no longer open it.
 */
export function alteredSealed(sealed: string): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[4] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[4] = bytes.toString('base64url');
  return parts.join('.');
}
