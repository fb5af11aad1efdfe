#!/usr/bin/env node
// Writes Brotli and gzip copies of the built scripts and styles next to them; the server's static
// plugin (preCompressed) sends them to browsers that accept them, so nothing is compressed per request.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dir = join(import.meta.dirname, '..', 'dist', 'assets');
for (const name of readdirSync(dir)) {
  if (!/\.(js|css|svg)$/.test(name)) continue;
  const data = readFileSync(join(dir, name));
  writeFileSync(
    join(dir, `${name}.br`),
    brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
  writeFileSync(join(dir, `${name}.gz`), gzipSync(data, { level: 9 }));
}
