// Tells whether a built web console is one to serve and ship: complete (every file index.html
// names is there) and a production build of `npm run build` (React's production code, with the
// Brotli and gzip copies the server sends). A build made with NODE_ENV=development or test (as
// vitest sets it) runs React's development code: 50 % larger, slower, and without .br/.gz files.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Why the console built in `dir` is not a complete production build, or null when it is one. */
export function consoleBuildProblem(dir) {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return `${dir} has no index.html: the console is not built`;
  const html = readFileSync(index, 'utf8');
  const named = [...html.matchAll(/(?:src|href)="\/(assets\/[^"?#]+)"/g)].map((match) => match[1]);
  if (named.length === 0) return `${index} names no files under /assets`;
  const missing = named.find((file) => !existsSync(join(dir, file)));
  if (missing) return `${missing}, which index.html loads, is missing: the build is incomplete`;
  const scripts = readdirSync(join(dir, 'assets')).filter((name) => name.endsWith('.js'));
  for (const name of scripts) {
    if (readFileSync(join(dir, 'assets', name), 'utf8').includes('jsxDEV')) {
      return `assets/${name} holds React's development code (built with NODE_ENV=development or test)`;
    }
    if (!existsSync(join(dir, 'assets', `${name}.br`))) {
      return `assets/${name} has no Brotli copy: not built by npm run build`;
    }
  }
  return null;
}
