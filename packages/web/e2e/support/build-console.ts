import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { TEST_CONSOLE_DIR_VARIABLE } from './console-dir.js';

/**
 * Builds the console from its sources as they are, into a folder of the test run's own, before the
 * browser tests (startConsole serves it through Server:ConsoleDir). packages/web/dist, which
 * `npm start` serves, is never replaced. A production build, like the one that ships: vitest runs
 * with NODE_ENV=test, which would otherwise make Vite build React's development code. Quiet unless
 * the build fails.
 */
export async function setup(): Promise<() => void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const outDir = mkdtempSync(path.join(tmpdir(), 'rc-e2e-console-'));
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root,
      configFile: `${root}/vite.config.ts`,
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  process.env[TEST_CONSOLE_DIR_VARIABLE] = outDir;
  return () => rmSync(outDir, { recursive: true, force: true });
}
