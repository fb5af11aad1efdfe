import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import {
  GetConfigRequestSchema,
  KonfigoGetConfigResponseSchema,
  SERVICE_PATH,
  ValueType,
  type GetConfigRequest,
  type KonfigoGetConfigResponse,
} from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/** The default caps (Versions:MaxEntries, Versions:MaxBytes). */
const MAX_ENTRIES = 10_000;
const MAX_BYTES = 3.5 * 1024 * 1024;

interface Entry {
  key: string;
  rawValue: string | null;
}

/** A version exactly at both default caps: 10,000 entries whose texts (key, name = key, group "O", value) fill 3.5 MiB. */
function fullVersion(): Array<{ key: string; value: string }> {
  const keys = Array.from({ length: MAX_ENTRIES }, (_, i) => `Section${i % 100}:Key${String(i).padStart(5, '0')}`);
  const fixed = keys.reduce((n, key) => n + 2 * key.length + 1, 0);
  const each = Math.floor((MAX_BYTES - fixed) / MAX_ENTRIES);
  const extra = (MAX_BYTES - fixed) % MAX_ENTRIES;
  return keys.map((key, i) => ({ key, value: 'v'.repeat(each + (i < extra ? 1 : 0)) }));
}

/** GetConfig as the Konfigo SDKs call it, with grpc-js's default limits (4 MiB received). */
function konfigoGetConfig(port: number, request: GetConfigRequest): Promise<KonfigoGetConfigResponse> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return new Promise<KonfigoGetConfigResponse>((resolve, reject) => {
    client.makeUnaryRequest(
      `${SERVICE_PATH}/GetConfig`,
      (message: GetConfigRequest) => Buffer.from(toBinary(GetConfigRequestSchema, message)),
      (bytes: Buffer) => fromBinary(KonfigoGetConfigResponseSchema, bytes),
      request,
      (error, response) => (error || !response ? reject(error ?? new Error('no answer')) : resolve(response)),
    );
  }).finally(() => client.close());
}

describe.each(databaseKinds)('versions at the default caps on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let fullId: string;
  let labels = 0;

  beforeAll(async () => {
    // The Konfigo layout answers GetConfig with two ids more than the other: the larger of the two.
    server = await startTestServer({ kind, args: ['--Grpc:GetConfigLayout=Konfigo'] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `large ${kind}` })).body.id;
    const entries = fullVersion();
    // One CreateVersion declares at most 5,000 entries: the second call adds the keys the version lacks.
    for (const half of [entries.slice(0, 5000), entries.slice(5000)]) {
      const classes = [
        {
          name: 'O',
          entries: half.map((e) => ({ key: e.key, name: e.key, valueType: ValueType.STRING, value: e.value })),
        },
      ];
      fullId = (await grpcClient.createVersion({ serviceId, version: 'full', classes })).versionId;
    }
  });
  afterAll(async () => {
    grpcClient?.close();
    await server?.close();
  });

  const newVersion = async () =>
    (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: `v${++labels}` })).body.id as string;
  const listed = async (versionId: string) =>
    new Map(
      ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Entry[]).map((e) => [
        e.key,
        e.rawValue,
      ]),
    );
  const importUrl = (versionId: string, query: string) =>
    `/api/configversions/${serviceId}/${versionId}/import?${query}`;

  it('keeps a version at both caps loadable: GetConfig fits the 4 MiB of a default gRPC client, one entry more is refused', async () => {
    const answer = await konfigoGetConfig(server.port, create(GetConfigRequestSchema, { serviceId, version: 'full' }));
    expect(answer.versionId).toBe(fullId);
    expect(answer.entries).toHaveLength(MAX_ENTRIES);
    const more = admin.post(`/api/configentries/${serviceId}/${fullId}`, { key: 'One:More', valueType: 1 });
    expect((await more).body.detail).toBe(
      'Version full would hold 10,001 entries; the limit is 10,000 (Versions:MaxEntries).',
    );
  });

  it('imports a 10,000-entry export back: into its own version (nothing to do) and into an empty one (dry run, apply)', async () => {
    const exported = await admin.get(`/api/configversions/${serviceId}/${fullId}/export?format=json`);
    expect(exported.status).toBe(200);
    expect(exported.text.length).toBeGreaterThan(1024 * 1024); // beyond the JSON body limit of other routes
    const file = exported.text;

    const same = await admin.post(importUrl(fullId, 'format=json'), file);
    expect(same.status, same.text.slice(0, 500)).toBe(200);
    expect([same.body.changes.length, same.body.unchanged]).toEqual([0, MAX_ENTRIES]);

    const empty = await newVersion();
    const dry = await admin.post(importUrl(empty, 'format=json&createMissing=true'), file);
    expect(dry.status, dry.text.slice(0, 500)).toBe(200);
    expect(dry.body.changes).toHaveLength(MAX_ENTRIES);
    const applied = await admin.post(
      importUrl(empty, `format=json&createMissing=true&dryRun=false&basedOn=${dry.body.basedOn}`),
      file,
    );
    expect(applied.status, applied.text.slice(0, 500)).toBe(200);
    expect(await listed(empty)).toEqual(await listed(fullId));
  });

  it('refuses an env file with more keys than a version may hold with a 400, dry run or not, and changes nothing', async () => {
    const env = Array.from({ length: 33_000 }, (_, i) => `Key${i}=v`).join('\n');
    const target = await newVersion();
    for (const query of ['format=env&createMissing=true', 'format=env&createMissing=true&dryRun=false']) {
      const res = await admin.post(importUrl(target, query), env, { contentType: 'text/plain' });
      expect(res.status, res.text).toBe(400);
      expect(res.body.detail).toBe(
        'The import names 33,000 keys; a version holds at most 10,000 (Versions:MaxEntries).',
      );
    }
    expect((await listed(target)).size).toBe(0);
  });

  it('answers /healthz while large YAML exports run', async () => {
    const url = `${server.baseUrl}/api/configversions/${serviceId}/${fullId}/export?format=yaml`;
    const headers = { cookie: admin.sessionCookie ?? '' };
    const exports = Array.from({ length: 3 }, () => fetch(url, { headers }));
    const written = new Set<Promise<Response>>();
    for (const e of exports) void e.then(() => written.add(e));
    // One export has been written; the others have been asked for and are being written now.
    await Promise.race(exports);
    await new Promise((resolve) => setImmediate(resolve));
    const pending = exports.filter((e) => !written.has(e));
    expect(pending.length).toBeGreaterThan(0);
    const health = fetch(`${server.baseUrl}/healthz`);
    const winner = await Promise.race([health.then(() => 'healthz'), ...pending.map((e) => e.then(() => 'export'))]);
    expect(winner).toBe('healthz');
    expect((await health).status).toBe(200);
    const answers = await Promise.all(exports);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const answer of answers) expect(await answer.text()).toContain('Section99:Key09999');
  });

  it('reads a YAML file too large for the event loop in a worker thread, with the same answer', async () => {
    const values = Object.fromEntries(
      fullVersion()
        .slice(0, 300)
        .map((e) => [e.key, e.value]),
    );
    const file = stringify({ values }, { lineWidth: 0 });
    expect(file.length).toBeGreaterThan(64 * 1024);
    const res = await admin.post(importUrl(fullId, 'format=yaml'), file, { contentType: 'application/yaml' });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect([res.body.changes.length, res.body.unchanged]).toEqual([0, 300]);
    const broken = await admin.post(importUrl(fullId, 'format=yaml'), `${file}\n  - not: [valid`, {
      contentType: 'application/yaml',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.detail).toMatch(/^The file is not valid YAML: /);
  });
});

describe.each(databaseKinds)('imports naming more keys than a statement may bind, on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Versions:MaxEntries=40000'] });
  });
  afterAll(() => server?.close());

  it('plans an env import of 33,000 keys (more than the 32,766 variables of a SQLite statement)', async () => {
    const admin = await server.admin();
    const serviceId = (await admin.post('/api/services', { name: 'many keys' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
    const env = Array.from({ length: 33_000 }, (_, i) => `Key${i}=v`).join('\n');
    const res = await admin.post(
      `/api/configversions/${serviceId}/${versionId}/import?format=env&createMissing=true`,
      env,
      { contentType: 'text/plain' },
    );
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.changes).toHaveLength(33_000);
  });
});
