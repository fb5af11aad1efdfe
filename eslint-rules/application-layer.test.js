import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { applicationLayer, layerOf, TRANSPORT_ADAPTERS } from './application-layer.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = path.join(import.meta.dirname, '..');
const server = path.join(root, 'packages/server/src');
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

const valid = (file, code) => ({ code, filename: path.join(server, file) });
const invalid = (file, code) => ({ ...valid(file, code), errors: [{ messageId: 'transport' }] });

tester.run('application-layer', applicationLayer, {
  valid: [
    valid('features/webhooks/webhooks.ts', `import { auditView } from '../../core/index.js';`),
    valid('features/versions/version-commands.ts', `import { ENTRY_LIMITS } from '../entries/index.js';`),
    // The transports' own files: routes, RPC handlers, adapters, and a feature's face.
    valid('features/webhooks/webhook-routes.ts', `import type { FastifyPluginAsync } from 'fastify';`),
    valid('features/realtime/config-rpc.ts', `import { ConnectError } from '@connectrpc/connect';`),
    valid('features/realtime/native-grpc.ts', `import http2 from 'node:http2';`),
    valid('features/entries/index.ts', `export { entryRoutes } from './entry-routes.js';`),
    // Outside the application layer the rule has nothing to say.
    valid('db/database.ts', `import { Kysely } from 'kysely';`),
    valid('features/webhooks/webhooks.test.ts', `import Fastify from 'fastify';`),
  ],
  invalid: [
    // Files that a rule by file name (*-commands.ts, *-queries.ts) let through.
    invalid('features/webhooks/webhooks.ts', `import Fastify from 'fastify';`),
    invalid('features/auth/local/local-accounts.ts', `import type { FastifyRequest } from 'fastify';`),
    invalid('features/auth/api-keys/api-keys.ts', `import { fastifyCookie } from '@fastify/cookie';`),
    invalid(
      'features/auth/tokens/personal-tokens.ts',
      `import type { Authenticator } from '../sessions/auth-plugin.js';`,
    ),
    invalid('features/entries/entry-plans.ts', `import { ConnectError } from '@connectrpc/connect';`),
    invalid('features/transfer/config-transfer.ts', `import { transferRoutes } from './transfer-routes.js';`),
    invalid('features/realtime/subscriptions.ts', `import type { ServerHttp2Stream } from 'node:http2';`),
    invalid('features/realtime/subscriptions.ts', `import { handleConfigCall } from './config-rpc.js';`),
    invalid('features/webhooks/webhook-dispatcher.ts', `import * as grpc from '@grpc/grpc-js';`),
    invalid('features/regions/primary-forwarding.ts', `import http from 'node:http';`),
    // A file nobody has classified yet is in the application layer.
    invalid('features/webhooks/webhook-anything.ts', `import Fastify from 'fastify';`),
    // core/ and the drivers.
    invalid('core/entry-writer.ts', `import type { Kysely } from 'kysely';`),
    invalid('features/services/service-commands.ts', `import pg from 'pg';`),
    // Every way of naming a module.
    invalid('features/webhooks/webhooks.ts', `export * from 'fastify';`),
    invalid('features/webhooks/webhooks.ts', `export { fastify } from 'fastify';`),
    invalid('features/webhooks/webhooks.ts', `export const load = () => import('fastify');`),
    invalid('features/webhooks/webhooks.ts', `export type R = import('fastify').FastifyRequest;`),
  ],
});

/** Every .ts file below `dir` but tests, as paths below packages/server/src. */
function sources(dir) {
  return readdirSync(path.join(server, dir), { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && f.name.endsWith('.ts') && !f.name.endsWith('.test.ts'))
    .map((f) => path.relative(server, path.join(f.parentPath, f.name)));
}

describe('the application layer', () => {
  it('holds every file of core/ and of the features but their faces and transport adapters', () => {
    const files = [...sources('features'), ...sources('core')];
    const layers = new Map(files.map((f) => [f, layerOf(path.join(server, f))]));
    expect([...layers.values()].every((layer) => layer !== null)).toBe(true);
    for (const file of ['webhooks/webhooks.ts', 'auth/local/local-accounts.ts', 'entries/entry-plans.ts']) {
      expect(layers.get(`features/${file}`)).toBe('application');
    }
    expect(sources('core').every((f) => layers.get(f) === 'application')).toBe(true);
  });

  it('names only transport adapters that exist', () => {
    expect(TRANSPORT_ADAPTERS.filter((f) => !existsSync(path.join(server, 'features', f)))).toEqual([]);
  });
});
