#!/usr/bin/env node
// `npm pack` of the CLI (prepack): builds what is stale, as the server's prepack does, so the tarball
// never carries an old or missing build. Its dist holds the SDK and the protocol code compiled in
// (src/sdk.ts), so it installs with nothing but registry packages.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(cliRoot, '..', '..');

const built = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'ensure-built.mjs'), '--quiet'], {
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
for (const file of ['cli/src/main.js', 'client/src/index.js', 'protocol/src/index.js']) {
  if (!existsSync(join(cliRoot, 'dist', file))) {
    process.stderr.write(`The CLI is not built (dist/${file} is missing).\n`);
    process.exit(1);
  }
}
