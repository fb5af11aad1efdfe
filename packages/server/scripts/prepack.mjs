#!/usr/bin/env node
// `npm pack` of the server (prepack): builds what is stale as `npm start` does, then copies into the
// package what lives elsewhere in the repository: the web console's production build (`console/`,
// which the server serves when it runs from an installed package) and the systemd units
// (`deploy/systemd/`). `--clean` (postpack) removes those copies again.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleBuildProblem } from '../../../scripts/console-build.mjs';

const serverRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(serverRoot, '..', '..');
const consoleCopy = join(serverRoot, 'console');
const deployCopy = join(serverRoot, 'deploy');
const webDist = join(repoRoot, 'packages', 'web', 'dist');

rmSync(consoleCopy, { recursive: true, force: true });
rmSync(deployCopy, { recursive: true, force: true });
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
cpSync(webDist, consoleCopy, { recursive: true });
cpSync(join(repoRoot, 'deploy', 'systemd'), join(deployCopy, 'systemd'), {
  recursive: true,
  filter: (source) => !source.endsWith('.test.mjs'),
});
