import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import type { ApiClient } from '@realtime-config/test-support/test-server';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

const OK = 0;
const PERMISSION_DENIED = 7;
const classes = [{ name: 'App', entries: [{ key: 'Greeting', name: 'Greeting', valueType: 1, value: 'hello' }] }];

/**
 * A service API key acts on its own service only, within its scopes, on REST and gRPC alike:
 * `read` reads (GetConfig, StartSubscribe, REST reads and exports), `register` registers versions,
 * `write` changes values. Anything else answers 403 / PERMISSION_DENIED and changes nothing.
 */
describe.each(databaseKinds)('API key scopes on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let otherServiceId: string;
  let versionId: string;

  const keyWith = async (scopes?: string[], sid = serviceId) => {
    const res = await admin.post(`/api/services/${sid}/apikeys`, {
      name: `key ${scopes?.join('+') ?? 'default'}`,
      scopes,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.key as string;
  };
  const rest = (key: string) => ({
    get: (url: string) => server.client().get(url, { headers: { authorization: `Bearer ${key}` } }),
    put: (url: string, body: unknown) =>
      server.client().put(url, body, { headers: { authorization: `Bearer ${key}` } }),
    post: (url: string, body: unknown, contentType?: string) =>
      server.client().post(url, body, { headers: { authorization: `Bearer ${key}` }, contentType }),
  });
  const metadata = (key: string) => {
    const m = new grpc.Metadata();
    m.set('authorization', `Bearer ${key}`);
    return m;
  };
  const code = (p: Promise<unknown>) =>
    p.then(
      () => OK,
      (e: grpc.ServiceError) => e.code,
    );
  const greeting = async () =>
    ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<any>).find(
      (e) => e.key === 'Greeting',
    );

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Grpc:RequireAuthentication=true'] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `scoped-${kind}` })).body.id;
    otherServiceId = (await admin.post('/api/services', { name: `other-${kind}` })).body.id;
    ({ versionId } = await grpcClient.createVersion(
      { serviceId, version: '1.0.0', classes },
      metadata(await keyWith(['register'])),
    ));
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  it('gives a new key read and register, shows its scopes, and refuses an unknown scope', async () => {
    const created = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'app' });
    expect(created.body.scopes).toEqual(['read', 'register']);
    const listed = (await admin.get(`/api/services/${serviceId}/apikeys`)).body as Array<any>;
    expect(listed.find((k) => k.id === created.body.id).scopes).toEqual(['read', 'register']);
    const bad = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'bad', scopes: ['read', 'admin'] });
    expect(bad.status).toBe(400);
    expect((await admin.get(`/api/services/${serviceId}/apikeys`)).body).toHaveLength(listed.length);
  });

  it('lets a read key read over gRPC and REST, and nothing more', async () => {
    const key = await keyWith(['read']);
    expect(await code(grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadata(key)))).toBe(OK);
    expect(await code(grpcClient.createVersion({ serviceId, version: 'read-only', classes }, metadata(key)))).toBe(
      PERMISSION_DENIED,
    );
    const api = rest(key);
    expect((await api.get(`/api/configentries/${serviceId}/${versionId}`)).status).toBe(200);
    expect((await api.get(`/api/configversions/${serviceId}/${versionId}/export?format=json`)).status).toBe(200);
    expect((await api.get(`/api/services/${serviceId}`)).status).toBe(200);
    const before = await greeting();
    const set = await api.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: before.id, rawValue: 'nope', generation: before.generation },
    ]);
    expect(set.status).toBe(403);
    expect(set.body.detail).toMatch(/no "write" scope/);
    expect(await greeting()).toEqual(before);
    const versions = JSON.stringify((await admin.get(`/api/configversions/${serviceId}`)).body);
    expect(versions).not.toContain('read-only');
  });

  it('lets a write key set values, import and restore, and a register key only register', async () => {
    const writer = rest(await keyWith(['read', 'write']));
    const before = await greeting();
    const set = await writer.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: before.id, rawValue: 'by a pipeline', generation: before.generation },
    ]);
    expect(set.status, set.text).toBe(200);
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Entry' });
    expect(audit.body.entities[0]).toMatchObject({ action: 'ValueSet', userName: 'key read+write' });
    expect(audit.body.entities[0].userId).toMatch(/^apikey:/);
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=env`;
    const dry = await writer.post(`${url}&dryRun=true`, 'Greeting=imported\n', 'text/plain');
    const applied = await writer.post(
      `${url}&dryRun=false&basedOn=${encodeURIComponent(dry.body.basedOn)}`,
      'Greeting=imported\n',
      'text/plain',
    );
    expect(applied.status, applied.text).toBe(200);
    expect((await greeting()).rawValue).toBe('imported');
    // Keys never manage: no new entries, versions, members or keys.
    expect(
      (await writer.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'New', valueType: 1 })).status,
    ).toBe(403);
    expect((await writer.post(`/api/services/${serviceId}/apikeys`, { name: 'more' })).status).toBe(403);

    const registrar = await keyWith(['register']);
    expect(await code(grpcClient.createVersion({ serviceId, version: '2.0.0', classes }, metadata(registrar)))).toBe(
      OK,
    );
    expect(await code(grpcClient.getConfig({ serviceId, version: '2.0.0' }, metadata(registrar)))).toBe(
      PERMISSION_DENIED,
    );
    expect((await rest(registrar).get(`/api/configentries/${serviceId}/${versionId}`)).status).toBe(403);
  });

  it('refuses a key on any other service, on gRPC and REST, and on routes that are not its service', async () => {
    const key = await keyWith(['read', 'register', 'write']);
    expect(await code(grpcClient.getConfig({ serviceId: otherServiceId, version: '1.0.0' }, metadata(key)))).toBe(
      PERMISSION_DENIED,
    );
    const api = rest(key);
    expect((await api.get(`/api/services/${otherServiceId}`)).status).toBe(403);
    expect((await api.get(`/api/configversions/${otherServiceId}`)).status).toBe(403);
    expect((await api.post('/api/services', { name: 'by a key' })).status).toBe(403);
    expect((await api.get('/api/users')).status).toBe(403);
    expect((await api.get('/auth/me')).status).toBe(403);
    // A search finds its own service only.
    const found = await api.post('/api/services/search', {});
    expect(found.status).toBe(200);
    expect(found.body.entities.map((s: any) => s.id)).toEqual([serviceId]);
  });

  it('refuses a deleted key with 401 on REST', async () => {
    const created = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'short-lived' });
    const api = rest(created.body.key);
    expect((await api.get(`/api/configversions/${serviceId}`)).status).toBe(200);
    expect((await admin.delete(`/api/services/${serviceId}/apikeys/${created.body.id}`)).status).toBe(204);
    expect((await api.get(`/api/configversions/${serviceId}`)).status).toBe(401);
  });
});
