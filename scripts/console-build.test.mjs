import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleBuildProblem } from './console-build.mjs';

let dir;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A console build as Vite and compress.mjs lay it out; `script` is the entry's code. */
function build({ script = 'const a=1;export{a};', brotli = true, entry = 'index-Abc123.js' } = {}) {
  dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><script type="module" crossorigin src="/assets/${entry}"></script><link rel="stylesheet" href="/assets/index-Def456.css">`,
  );
  writeFileSync(join(dir, 'assets', 'index-Abc123.js'), script);
  writeFileSync(join(dir, 'assets', 'index-Def456.css'), 'body{}');
  if (brotli) writeFileSync(join(dir, 'assets', 'index-Abc123.js.br'), 'br');
  return dir;
}

describe('consoleBuildProblem', () => {
  it('accepts a complete production build', () => {
    expect(consoleBuildProblem(build())).toBeNull();
  });

  it("refuses a development build (React's jsxDEV), as the test runner's NODE_ENV=test makes", () => {
    expect(consoleBuildProblem(build({ script: 'import{jsxDEV as e}from"x";e("div");' }))).toMatch(/development/);
  });

  it('refuses a build without the compressed copies of npm run build', () => {
    expect(consoleBuildProblem(build({ brotli: false }))).toMatch(/no Brotli copy/);
  });

  it('refuses a build whose index.html names a file that is gone (a rebuild half done)', () => {
    expect(consoleBuildProblem(build({ entry: 'index-Gone99.js' }))).toMatch(/index-Gone99\.js.*missing/);
  });

  it('refuses a folder without index.html', () => {
    dir = mkdtempSync(join(tmpdir(), 'console-build-'));
    expect(consoleBuildProblem(dir)).toMatch(/not built/);
  });
});
