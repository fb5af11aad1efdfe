#!/usr/bin/env node
// The command's entry: the compiled CLI (npm ci builds it; so does `npm run build`).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/src/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('realtime-config is not built yet: run `npm run build` at the repository root.\n');
  process.exit(1);
}
await import(main.href);
