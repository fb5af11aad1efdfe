import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Builds the console into packages/web/dist before the browser tests, so they test the sources as they
 * are (the server serves that folder). Quiet unless the build fails.
 */
export async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  await build({ root, configFile: `${root}/vite.config.ts`, logLevel: 'warn' });
}
