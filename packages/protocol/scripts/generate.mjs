#!/usr/bin/env node
// Generates the TypeScript code of proto/ with protoc (Debian: protobuf-compiler) and the
// protoc-gen-es plugin from node_modules. Usage: node scripts/generate.mjs [out dir, default src/gen]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Writes the generated code of every .proto under proto/ into outDir, replacing what it held.
 * The code is written beside it first, so a failed run leaves outDir as it was.
 */
export function generate(outDir) {
  const protoDir = join(pkgDir, 'proto');
  const protos = readdirSync(protoDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.proto'))
    .map((d) => relative(protoDir, join(d.parentPath, d.name)))
    .sort();
  const staging = `${outDir}.staging`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const plugin = join(pkgDir, '..', '..', 'node_modules', '.bin', 'protoc-gen-es');
  try {
    execFileSync(
      'protoc',
      [
        `--plugin=protoc-gen-es=${plugin}`,
        `--es_out=${staging}`,
        '--es_opt=target=ts,import_extension=js',
        `--proto_path=${protoDir}`,
        ...protos,
      ],
      { cwd: pkgDir, stdio: 'inherit' },
    );
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (error.code === 'ENOENT') {
      console.error("protoc is not installed: apt-get install protobuf-compiler (or your platform's protoc package).");
      process.exit(1);
    }
    throw error;
  }
  rmSync(outDir, { recursive: true, force: true });
  renameSync(staging, outDir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  generate(join(pkgDir, process.argv[2] ?? 'src/gen'));
}
