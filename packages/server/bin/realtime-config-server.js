#!/usr/bin/env node
// The server's command (`npm start` runs it too): serves, or runs migrate, backup, restore or
// check-config. The compiled server is in dist/ (npm ci and `npm run build` make it in a checkout).
import { existsSync } from 'node:fs';

const main = new URL('../dist/server/src/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('realtime-config-server is not built yet: run `npm run build` at the repository root.\n');
  process.exit(1);
}
await import(main.href);
