import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = '@realtime-config/server';

/**
 * The folder of the server's package.json: packages/server in a checkout, the installed package
 * folder otherwise. Found by walking up from this file, so it holds for the sources (src/…), the
 * compiled output (dist/server/src/…) and an installed copy alike.
 */
export const serverPackageRoot: string = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The server's version, as its package.json says. */
export const serverVersion: string = readPackage(serverPackageRoot)?.version ?? '0.0.0';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (readPackage(dir)?.name === PACKAGE_NAME) return dir;
    if (path.dirname(dir) === dir) throw new Error(`${PACKAGE_NAME}: package.json not found above ${start}`);
  }
}

function readPackage(dir: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
