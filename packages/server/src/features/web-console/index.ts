import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppConfig } from '../../platform/config/app-config.js';
import { problemFor, sendProblem } from '../../platform/http/problem-details.js';
import { serverPackageRoot } from '../../platform/package-info.js';
import { snapshotConsole } from './console-snapshot.js';

/**
 * The console that comes with the server: packages/web/dist in a checkout, or the `console` folder
 * that packing copies into the server's package (scripts/prepack.mjs).
 */
export function shippedConsoleDir(): string {
  const checkout = path.join(serverPackageRoot, '..', 'web', 'dist');
  return existsSync(path.join(checkout, 'index.html')) ? checkout : path.join(serverPackageRoot, 'console');
}

/**
 * Paths the console's router owns. Only these fall back to index.html: an unknown /api, /auth, /saml2,
 * gRPC or operations path keeps its own JSON 404.
 */
export const UI_ROUTES = ['/', '/sign-in', '/account', '/services', '/users'] as const;

export interface WebConsoleOptions {
  readonly config: AppConfig;
}

/**
 * The document's Content-Security-Policy: no inline or foreign script; inline styles for Mantine's
 * style props and CSS variables and CodeMirror's injected styles (docs/adr/0009-web-console.md);
 * fetches to this origin, plus the Jwt provider's token endpoint for the PKCE code exchange.
 */
export function consoleCsp(config: AppConfig): string {
  const tokenUrl = config.authentication.provider === 'Jwt' ? config.authentication.jwt?.tokenUrl : null;
  const connect = ["'self'", ...(tokenUrl ? [new URL(tokenUrl).origin] : [])];
  return [
    "default-src 'self'",
    "base-uri 'self'",
    `connect-src ${connect.join(' ')}`,
    "font-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    ...(config.server.tls ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/**
 * The policy of the console's schema-checker worker (its file is `assets/schema-worker-<hash>.js`):
 * Ajv compiles each JSON Schema into a function (`new Function`), which the document's policy
 * forbids. The worker may evaluate, and nothing else: no network, no other origin's script; it has
 * no DOM and no token (docs/adr/0014-schema-checks-in-a-worker.md).
 */
export const SCHEMA_WORKER_CSP = "default-src 'none'; script-src 'self' 'unsafe-eval'";

const isSchemaWorker = (file: string) => /^schema-worker-[\w-]+\.js(\.br|\.gz)?$/.test(path.basename(file));

/**
 * Serves the built web console at / (docs/console.md) with an SPA fallback for its own routes,
 * from a copy of the build taken at start (console-snapshot.ts).
 */
export const webConsole: FastifyPluginAsync<WebConsoleOptions> = async (app, options) => {
  const source = options.config.server.consoleDir ?? shippedConsoleDir();
  const snapshot = await snapshotConsole(source);
  if (snapshot) app.addHook('onClose', async () => snapshot.remove());
  if (snapshot && snapshot.missing.length > 0) {
    app.log.warn({ source, missing: snapshot.missing }, 'the web console build is incomplete');
  }
  const root = snapshot?.dir ?? source;
  const built = snapshot !== null;
  const indexHtml = snapshot ? readFileSync(path.join(snapshot.dir, 'index.html')) : null;
  const csp = consoleCsp(options.config);

  const sendIndex = async (_request: unknown, reply: FastifyReply) => {
    if (!indexHtml) {
      return sendProblem(reply, problemFor('NOT_FOUND', 'The web console is not built: run `npm run build`.'));
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', csp)
      .send(indexHtml);
  };
  const route = { schema: { hide: true }, config: { policy: 'public' as const } };
  for (const url of UI_ROUTES) {
    app.get(url, route, sendIndex);
    if (url !== '/') app.get(`${url}/*`, route, sendIndex);
  }

  if (!built) return;
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    // One route per built file (no wildcard), so a missing file is the usual JSON 404.
    wildcard: false,
    index: false,
    globIgnore: ['index.html'],
    decorateReply: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      const hashed = path.relative(root, filePath).startsWith(`assets${path.sep}`);
      void reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      if (hashed && isSchemaWorker(filePath)) void reply.header('content-security-policy', SCHEMA_WORKER_CSP);
    },
  });
};
