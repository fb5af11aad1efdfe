import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { connectTo, plantEntries } from '@realtime-config/test-support/planted-entries';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient } from '@realtime-config/test-support/test-server';

/** Keys stored before their segments were reserved: they stay data, on every path that reads them. */
const STORED = [
  { key: '__proto__:polluted', valueType: 1, rawValue: 'yes' },
  { key: 'constructor:prototype:isAdmin', valueType: 2, rawValue: 'true' },
  { key: 'App:prototype', valueType: 8, rawValue: '{"polluted":true}' },
  { key: 'App:Name', valueType: 1, rawValue: 'orders' },
];
/** The ones an env file can name (`__proto__` cannot be written as a variable name). */
const STORED_ENV = STORED.filter((e) => !e.key.startsWith('__proto__'));

const dropped: TestDatabase[] = [];
afterAll(async () => {
  await killServerProcesses();
  for (const database of dropped) await database.drop();
});

/** The server process and a connection of the test's own to its database. */
async function serverWithDatabase(kind: 'sqlite' | 'postgres') {
  let args: readonly string[];
  let target: { sqliteFile: string } | { url: string };
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'rc-reserved-'));
    args = [`--Database:DataDir=${dir}`];
    target = { sqliteFile: path.join(dir, 'realtime-config.db') };
  } else {
    const database = await createTestDatabase('postgres');
    dropped.push(database);
    args = database.args;
    target = { url: (database.args[0] ?? '').replace(/^--Database:Url=/, '') };
  }
  const server = await startServerProcess({ args: serverProcessArgs(await findFreePort(), args) });
  return { server, db: connectTo(target) };
}

/** The server process answers as it should: health, readiness, sign-in and the API. */
async function expectHealthy(server: ServerProcess): Promise<void> {
  expect(server.child.exitCode).toBeNull();
  const anonymous = new ApiClient(server.baseUrl);
  expect((await anonymous.get('/healthz')).status).toBe(200);
  expect((await anonymous.get('/readyz')).status).toBe(200);
  const login = await anonymous.post('/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  expect(login.status, login.text).toBe(200);
  const services = await anonymous.post('/api/services/search', {});
  expect(services.status, services.text).toBe(200);
  expect(services.body.entities.length).toBeGreaterThan(0);
}

describe('keys with a reserved segment stored before the rule', () => {
  it.concurrent.each(databaseKinds)(
    'are exported in every format, compared and imported back as data on %s, and the server stays healthy',
    async (kind) => {
      const { server, db } = await serverWithDatabase(kind);
      try {
        const admin = await new ApiClient(server.baseUrl).login('admin', ADMIN_PASSWORD);
        const serviceId = (await admin.post('/api/services', { name: 'orders' })).body.id as string;
        const newVersion = async (label: string) =>
          (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label })).body.id as string;
        const stored = await newVersion('stored');
        const storedEnv = await newVersion('stored-env');
        const other = await newVersion('other');
        await plantEntries(db, stored, STORED);
        await plantEntries(db, storedEnv, STORED_ENV);
        expect(
          (
            await admin.post(`/api/configentries/${serviceId}/${other}`, {
              key: 'App:Name',
              valueType: 1,
              rawValue: 'x',
            })
          ).status,
        ).toBe(201);
        const values = async (versionId: string) =>
          new Map(
            ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as any[]).map((e) => [
              e.key,
              e.rawValue,
            ]),
          );
        const at = (versionId: string) => `/api/configversions/${serviceId}/${versionId}`;

        const files: Array<[query: string, contentType: string, read: (text: string) => any, versionId: string]> = [
          ['format=json', 'application/json', JSON.parse, stored],
          ['format=json&flat=true', 'application/json', JSON.parse, stored],
          ['format=yaml', 'application/yaml', parseYaml, stored],
          ['format=yaml&flat=true', 'application/yaml', parseYaml, stored],
          ['format=env', 'text/plain', (text) => text, storedEnv],
        ];
        for (const [query, contentType, read, versionId] of files) {
          const exported = await admin.get(`${at(versionId)}/export?${query}`);
          expect({ query, status: exported.status }).toEqual({ query, status: 200 });
          const document = read(exported.text);
          if (query === 'format=json' || query === 'format=yaml') {
            // Own members of the parsed file, never a prototype.
            expect(Object.getOwnPropertyDescriptor(document.values, '__proto__')?.value).toEqual({ polluted: 'yes' });
            expect(document.values.constructor).toEqual({ prototype: { isAdmin: true } });
            expect(document.values.App).toEqual({ prototype: { polluted: true }, Name: 'orders' });
          } else if (query.includes('flat')) {
            expect(document.values['__proto__:polluted']).toBe('yes');
            expect(Object.keys(document.entries)).toEqual(expect.arrayContaining(STORED.map((e) => e.key)));
          } else {
            expect(document).toContain('constructor__prototype__isAdmin=true');
          }
          // Imported back unchanged: a dry run, then applied with its token.
          const dry = await admin.post(`${at(versionId)}/import?${query.replace('&flat=true', '')}`, exported.text, {
            contentType,
          });
          expect({ query, status: dry.status, changes: dry.body.changes }).toEqual({ query, status: 200, changes: [] });
          const applied = await admin.post(
            `${at(versionId)}/import?${query.replace('&flat=true', '')}&dryRun=false&basedOn=${dry.body.basedOn}`,
            exported.text,
            { contentType },
          );
          expect({ query, status: applied.status }).toEqual({ query, status: 200 });
        }
        // A version with `__proto__:…` cannot be written as env: refused by name, not by failing.
        const env = await admin.get(`${at(stored)}/export?format=env`);
        expect(env.status).toBe(409);
        expect(env.body.detail).toContain('__proto__:polluted');

        // A changed value of such a key is imported as data.
        const file = JSON.stringify({ values: { '__proto__:polluted': 'no', 'constructor:prototype:isAdmin': false } });
        const changed = await admin.post(`${at(stored)}/import?format=json&dryRun=false`, file);
        expect(changed.status, changed.text).toBe(200);
        expect([...(await values(stored))].sort()).toEqual(
          [
            ['App:Name', 'orders'],
            ['App:prototype', '{"polluted":true}'],
            ['__proto__:polluted', 'no'],
            ['constructor:prototype:isAdmin', 'false'],
          ].sort(),
        );

        const compare = await admin.get(`/api/configversions/${serviceId}/compare?base=${stored}&target=${other}`);
        expect(compare.status, compare.text).toBe(200);
        expect(compare.body.differences.map((d: any) => [d.key, d.change])).toEqual([
          ['App:Name', 'valueChanged'],
          ['App:prototype', 'removed'],
          ['__proto__:polluted', 'removed'],
          ['constructor:prototype:isAdmin', 'removed'],
        ]);

        // Twenty seconds on, the process still answers everything normally.
        await sleep(20_000);
        await expectHealthy(server);
        expect((await admin.get(`${at(stored)}/export?format=json`)).status).toBe(200);
        expect(server.output()).not.toMatch(/"level":(50|60)/);
      } finally {
        await db.destroy();
        await server.kill();
      }
    },
    120_000,
  );
});
