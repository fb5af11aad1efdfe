#!/usr/bin/env node
// Fails when src/gen is not exactly what scripts/generate.mjs produces from proto/
// (stale, hand-edited, missing or extra files). Generates into a temporary
// directory and compares, so the working tree is never modified.
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const committedDir = join(pkgDir, 'src', 'gen');

/** All files under dir, as sorted paths relative to dir. */
function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

const tmp = mkdtempSync(join(tmpdir(), 'protocol-gen-'));
let problems = [];
try {
  const freshDir = join(tmp, 'src', 'gen');
  generate(freshDir);
  const fresh = listFiles(freshDir);
  const committed = listFiles(committedDir);
  for (const f of fresh) {
    if (!committed.includes(f)) problems.push(`missing: src/gen/${f}`);
    else if (!readFileSync(join(freshDir, f)).equals(readFileSync(join(committedDir, f))))
      problems.push(`differs: src/gen/${f}`);
  }
  for (const f of committed) {
    if (!fresh.includes(f)) problems.push(`extra (not generated): src/gen/${f}`);
  }
  if (fresh.length === 0) problems.push('the generator produced no files');
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error('Generated code in packages/protocol/src/gen is stale:');
  for (const p of problems) console.error(`  ${p}`);
  console.error('Run `npm run generate -w @realtime-config/protocol` and commit the result.');
  process.exit(1);
}
console.log('packages/protocol/src/gen is up to date.');
