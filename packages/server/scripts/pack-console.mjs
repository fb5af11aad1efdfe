#!/usr/bin/env node
// `npm pack` of the server (prepack): builds what is stale as `npm start` does, then copies the web
// console's production build into the package's `console` folder, which the server serves when it
// runs from an installed package. `--clean` (postpack) removes that copy again.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleBuildProblem } from '../../../scripts/console-build.mjs';

const serverRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(serverRoot, '..', '..');
const target = join(serverRoot, 'console');
const webDist = join(repoRoot, 'packages', 'web', 'dist');

rmSync(target, { recursive: true, force: true });
if (process.argv.includes('--clean')) process.exit(0);

const built = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'ensure-built.mjs'), '--quiet'], {
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
if (!existsSync(join(serverRoot, 'dist', 'server', 'src', 'main.js'))) {
  process.stderr.write('The server is not built (dist/server/src/main.js is missing).\n');
  process.exit(1);
}
const problem = consoleBuildProblem(webDist);
if (problem !== null) {
  process.stderr.write(`The web console cannot be packed: ${problem}\n`);
  process.exit(1);
}
cpSync(webDist, target, { recursive: true });
