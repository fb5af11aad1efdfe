#!/usr/bin/env node
// @ts-check
// Serves this example as static files on its own origin: index.html and app.js from this folder, and
// the official OpenFeature packages, unchanged, from node_modules under /vendor/.
//   PORT=5173 node examples/openfeature-web/serve.mjs
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** Each package's folder, where Node looks for it (ofrep-core: the copy the web provider depends on). */
/** @param {string} name @param {NodeJS.Require} from */
function packageDir(name, from = require) {
  const dir = (from.resolve.paths(name) ?? [])
    .map((p) => join(p, name))
    .find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw new Error(`${name} is not installed: run npm install in the repository`);
  return dir;
}
const webProvider = packageDir('@openfeature/ofrep-web-provider');
const vendor = {
  '@openfeature/core': packageDir('@openfeature/core'),
  '@openfeature/web-sdk': packageDir('@openfeature/web-sdk'),
  '@openfeature/ofrep-web-provider': webProvider,
  '@openfeature/ofrep-core': packageDir('@openfeature/ofrep-core', createRequire(join(webProvider, 'package.json'))),
};
/** @type {Record<string, string>} */
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript',
};

/** The file a URL path names, or null: never outside this folder or a vendored package. */
/** @param {string} pathname @returns {string | null} */
function fileOf(pathname) {
  const path = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
  for (const [name, dir] of Object.entries(vendor)) {
    const prefix = `/vendor/${name}/`;
    if (path.startsWith(prefix)) return inside(dir, path.slice(prefix.length));
  }
  return path.startsWith('/vendor/') ? null : inside(here, path.slice(1));
}

/** @param {string} root @param {string} relative */
function inside(root, relative) {
  const file = normalize(join(root, relative));
  return file.startsWith(root + sep) && existsSync(file) && statSync(file).isFile() ? file : null;
}

/**
 * Starts the static server; resolves with it once it listens.
 * @returns {Promise<import('node:http').Server>}
 */
export function serveExample(port = 0, host = '127.0.0.1') {
  const server = createServer((request, response) => {
    const file = fileOf(new URL(request.url ?? '/', 'http://x').pathname);
    if (!file || request.method !== 'GET') {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serveExample(Number(process.env.PORT ?? 5173), process.env.HOST ?? '127.0.0.1');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  console.log(`OpenFeature web example on http://127.0.0.1:${port}/`);
}
