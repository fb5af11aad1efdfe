#!/usr/bin/env node
// Builds the workspace packages (`npm run build`) only when a source file changed since the last
// successful build, so `npm start` does not recompile every time. Several starts from one checkout
// at once build at most once: a lock folder serializes them and each re-checks after waiting.
// The console in packages/web/dist must also be a complete production build (console-build.mjs):
// one built in development mode, or half built, is built again.
//
// Usage: node scripts/ensure-built.mjs [--quiet]
// Used by `npm start` and by the root `prepare` script (after `npm ci`). In a production install
// without dev dependencies (`npm ci --omit=dev`) there is no compiler: an existing build is used
// as it is, and a missing one is reported with what to do.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { consoleBuildProblem } from './console-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stateDir = join(root, '.build');
const stamp = join(stateDir, 'stamp');
const lock = join(stateDir, 'lock');
const LOCK_STALE_MS = 10 * 60_000;
const quiet = process.argv.includes('--quiet');
const say = (message) => quiet || process.stdout.write(`${message}\n`);

const IGNORED = new Set(['node_modules', 'dist', '.build', 'coverage', 'test-results']);
const isTest = (name) => /\.test\.tsx?$/.test(name) || name === 'test-support';

/** Newest modification time (ms) of the build's inputs: every workspace package but its outputs and tests. */
function newestInput() {
  const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces ?? [];
  let newest = 0;
  const visit = (path) => {
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const entry of readdirSync(path)) {
        if (!IGNORED.has(entry) && !isTest(entry)) visit(join(path, entry));
      }
    } else {
      newest = Math.max(newest, info.mtimeMs);
    }
  };
  for (const workspace of workspaces) if (existsSync(join(root, workspace))) visit(join(root, workspace));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.base.json']) visit(join(root, file));
  return newest;
}

const upToDate = () => existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput();
const consoleProblem = () => consoleBuildProblem(join(root, 'packages/web/dist'));
// A shell's NODE_ENV=development would make Vite build React's development code.
const buildEnv = { ...process.env, NODE_ENV: 'production' };

function run(args) {
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit', env: buildEnv });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function compilerInstalled() {
  try {
    createRequire(join(root, 'package.json')).resolve('typescript');
    return true;
  } catch {
    return false;
  }
}

async function withLock(work) {
  mkdirSync(stateDir, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A build that died (killed terminal) leaves its lock behind; it is not waited for forever.
      if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (upToDate() && consoleProblem() === null) process.exit(0);
if (!compilerInstalled()) {
  if (existsSync(join(root, 'packages/server/dist/server/src/main.js'))) {
    say('No dev dependencies (production install): using the existing build.');
    process.exit(0);
  }
  process.stderr.write(
    'The server is not built and this install has no dev dependencies. Build it where they are installed (npm ci && npm run build) and ship the packages/*/dist folders with it.\n',
  );
  process.exit(1);
}
await withLock(async () => {
  // Another start may have built while this one waited: each step checks again.
  if (!upToDate()) {
    const started = Date.now();
    say('Building (sources changed since the last build)…');
    run(['run', 'build', '--silent']);
    // The stamp is the start time: a file saved during the build makes the next start build again.
    writeFileSync(stamp, '');
    utimesSync(stamp, started / 1000, started / 1000);
    say(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
  const problem = consoleProblem();
  if (problem !== null) {
    say(`The web console in packages/web/dist is not a production build (${problem}): building it…`);
    run(['run', 'build', '--silent', '-w', '@realtime-config/web']);
    const still = consoleProblem();
    if (still !== null) {
      process.stderr.write(`The web console could not be built for production: ${still}\n`);
      process.exit(1);
    }
  }
});
