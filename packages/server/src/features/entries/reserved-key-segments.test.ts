import * as grpc from '@grpc/grpc-js';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { plantEntries } from '@realtime-config/test-support/planted-entries';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/** Keys with a segment that names an object's prototype in JavaScript; none may be created. */
const RESERVED = ['__proto__:polluted', 'constructor:prototype:isAdmin', 'App:prototype', 'constructor'];

const INVALID_ARGUMENT = grpc.status.INVALID_ARGUMENT;

describe.each(databaseKinds)('keys with a reserved segment on %s', (kind) => {
  let open: TestServer; // the shipped default: gRPC without credentials
  let secured: TestServer; // Grpc:RequireAuthentication=true: API keys and signed-in users
  let admin: ApiClient;
  let serviceId: string;
  let labels = 0;

  beforeAll(async () => {
    open = await startTestServer({ kind });
    admin = await open.admin();
    serviceId = (await admin.post('/api/services', { name: `reserved ${kind}` })).body.id;
  });
  afterAll(async () => {
    await secured?.close();
    await open?.close();
  });

  const newVersion = async (client = admin, sid = serviceId) =>
    (await client.post(`/api/configversions/${sid}`, { versionLabel: `v${++labels}` })).body.id as string;
  const storedKeys = async (server: TestServer, key: string) =>
    (await server.internals.database.db.selectFrom('entries').select('key').where('key', '=', key).execute()).length;
  /** Nothing with a reserved segment was stored, on any path, in any version. */
  const expectNoneStored = async (server: TestServer) => {
    for (const key of [...RESERVED, '__proto__:x'])
      expect({ key, rows: await storedKeys(server, key) }).toEqual({ key, rows: 0 });
  };

  it('refuses them on REST entry create with 400 naming the key, and stores nothing', async () => {
    const versionId = await newVersion();
    for (const key of RESERVED) {
      const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType: 1,
        rawValue: 'x',
      });
      expect({ key, status: res.status }).toEqual({ key, status: 400 });
      expect(res.body.detail).toContain(`"${key}"`);
      expect(res.body.errors.key[0]).toMatch(/reserved/);
    }
    // Case and neighbours are ordinary keys: only the exact segments are reserved.
    for (const key of ['App:Prototype', 'App:__proto', 'Constructor:x']) {
      const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1 });
      expect({ key, status: res.status }).toEqual({ key, status: 201 });
    }
    // A developer may not create entries at all.
    const dev = await open.userWithRole(`reserved-dev-${kind}`, 'developer');
    const byDev = await dev.post(`/api/configentries/${serviceId}/${versionId}`, { key: RESERVED[0], valueType: 1 });
    expect([400, 403]).toContain(byDev.status);
    await expectNoneStored(open);
  });

  it('refuses them on gRPC CreateVersion without credentials (INVALID_ARGUMENT naming the key), registering nothing', async () => {
    const client = new GrpcTestClient(`127.0.0.1:${open.port}`);
    try {
      for (const key of RESERVED) {
        const label = `anonymous ${key}`;
        const error = await client
          .createVersion({
            serviceId,
            version: label,
            classes: [
              {
                name: 'App',
                entries: [
                  { key: 'App:Fine', name: 'Fine', valueType: ValueType.STRING, value: 'ok' },
                  { key, name: key, valueType: ValueType.STRING, value: 'yes' },
                ],
              },
            ],
          })
          .then(
            () => null,
            (err: grpc.ServiceError) => err,
          );
        expect({ key, code: error?.code }).toEqual({ key, code: INVALID_ARGUMENT });
        expect(error?.details).toContain(`"${key}"`);
        const versions = await admin.get(`/api/configversions/${serviceId}`);
        expect(JSON.stringify(versions.body)).not.toContain(label);
      }
    } finally {
      client.close();
    }
    await expectNoneStored(open);
  });

  it('refuses them on gRPC CreateVersion with an API key and with a developer signed in', async () => {
    secured = await startTestServer({ kind, args: ['--Grpc:RequireAuthentication=true'] });
    const securedAdmin = await secured.admin();
    const sid = (await securedAdmin.post('/api/services', { name: 'secured' })).body.id as string;
    const apiKey = (await securedAdmin.post(`/api/services/${sid}/apikeys`, { name: 'deployer' })).body.key as string;
    const dev = await secured.userWithRole(`grpc-dev-${kind}`, 'developer');
    // A member: others may not register versions at all.
    await securedAdmin.post(`/api/services/${sid}/members`, { userId: `grpc-dev-${kind}` });
    const connect = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: secured.baseUrl }),
    );
    const callers: Array<[string, Record<string, string>]> = [
      ['API key', { authorization: `Bearer ${apiKey}` }],
      ['developer session', { cookie: dev.sessionCookie ?? '' }],
    ];
    for (const [caller, headers] of callers) {
      for (const key of RESERVED) {
        const error = await connect
          .createVersion(
            {
              serviceId: sid,
              version: `${caller} ${key}`,
              classes: [{ name: 'App', entries: [{ key, name: key, valueType: ValueType.STRING, value: 'yes' }] }],
            },
            { headers },
          )
          .then(
            () => null,
            (err: unknown) => ConnectError.from(err),
          );
        expect({ caller, key, code: error?.code }).toEqual({ caller, key, code: Code.InvalidArgument });
        expect(error?.rawMessage).toContain(`"${key}"`);
      }
      // The caller may register: the refusal above is the key rule, not a missing permission.
      const fine = await connect.createVersion(
        {
          serviceId: sid,
          version: `${caller} fine`,
          classes: [{ name: 'App', entries: [{ key: 'App:Fine', name: 'Fine', valueType: ValueType.STRING }] }],
        },
        { headers },
      );
      expect(fine.versionId).toMatch(/^[0-9a-f-]{36}$/);
    }
    await expectNoneStored(secured);
  });

  it.each([
    ['json nested, sent as text', 'json', 'text/plain', '{"__proto__":{"polluted":"yes"},"App":{"prototype":1}}'],
    [
      'json flat',
      'json',
      'application/json',
      '{"values":{"__proto__:polluted":"yes","constructor:prototype:isAdmin":true}}',
    ],
    [
      'yaml',
      'yaml',
      'application/yaml',
      '__proto__:\n  polluted: yes\nconstructor:\n  prototype:\n    isAdmin: true\n',
    ],
    ['env', 'env', 'text/plain', 'constructor__prototype__isAdmin=true\nApp__prototype=x\n'],
  ])(
    'refuses them on an import with createMissing (%s), dry run and applied alike',
    async (_name, format, contentType, file) => {
      const versionId = await newVersion();
      for (const dryRun of ['true', 'false']) {
        const res = await admin.post(
          `/api/configversions/${serviceId}/${versionId}/import?format=${format}&createMissing=true&dryRun=${dryRun}`,
          file,
          { contentType },
        );
        expect({ dryRun, status: res.status }).toEqual({ dryRun, status: 400 });
        const named = Object.keys(res.body.errors ?? {});
        expect(named.length).toBeGreaterThan(0);
        for (const key of named) expect(RESERVED).toContain(key);
        expect(Object.values(res.body.errors).flat().join(' ')).toMatch(/reserved/);
      }
      expect((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body).toEqual([]);
      await expectNoneStored(open);
    },
  );

  it('refuses to create them again by a restore or a promotion, even when they were stored before the rule', async () => {
    const versionId = await newVersion();
    const base = `/api/configentries/${serviceId}/${versionId}`;
    await plantEntries(open.internals.database.db, versionId, [
      { key: '__proto__:polluted', valueType: 1, rawValue: 'yes' },
    ]);
    const planted = ((await admin.get(base)).body as Array<{ id: string; key: string; generation: number }>)[0]!;
    expect(planted.key).toBe('__proto__:polluted');
    // A full audit view of the entry (what a restore creates it from), then its deletion.
    expect((await admin.put(`${base}/${planted.id}`, { description: 'kept', generation: 1 })).status).toBe(200);
    const before = (await admin.get(`${base}/${planted.id}/history`)).body.entities[0].timestamp as string;
    expect((await admin.delete(`${base}/${planted.id}`)).status).toBe(204);

    const restore = await admin.post(`${base}/restore`, { at: before });
    expect(restore.status, restore.text).toBe(400);
    expect(Object.keys(restore.body.errors)).toEqual(['__proto__:polluted']);
    expect((await admin.get(base)).body).toEqual([]);

    // A promotion from a version that still holds such a key cannot carry it into another.
    const from = await newVersion();
    await plantEntries(open.internals.database.db, from, [
      { key: 'constructor:prototype:isAdmin', valueType: 2, rawValue: 'true' },
    ]);
    const to = await newVersion();
    const promote = await admin.post(`/api/configversions/${serviceId}/${to}/import?createMissing=true&dryRun=false`, {
      fromVersionId: from,
    });
    expect(promote.status, promote.text).toBe(400);
    expect(Object.keys(promote.body.errors)).toEqual(['constructor:prototype:isAdmin']);
    expect((await admin.get(`/api/configentries/${serviceId}/${to}`)).body).toEqual([]);
  });

  it('answers field errors named constructor or prototype as problem details, not 500', async () => {
    const versionId = await newVersion();
    const res = await admin.post(`/api/configentries/${serviceId}/${versionId}/restore`, {
      at: '2026-01-01T00:00:00Z',
      constructor: 1,
      prototype: 2,
    });
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['constructor', 'prototype']);
  });
});
