import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';
const KEY_FORMAT = /^rck_[A-Za-z0-9_-]{43}$/;

describe.each(databaseKinds)('API keys of a service on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
  });
  afterAll(() => server.close());

  let serviceCount = 0;
  async function createService(name: string): Promise<string> {
    const res = await admin.post('/api/services', { name: `${name} ${++serviceCount}` });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const storedKeys = (serviceId: string) =>
    server.internals.database.db.selectFrom('api_keys').selectAll().where('service_id', '=', serviceId).execute();

  const auditOf = async (serviceId: string, entityType = 'ApiKey') => {
    const res = await admin.post('/api/auditlogs/search', { serviceId, entityType });
    expect(res.status).toBe(200);
    return res.body.entities as Array<Record<string, any>>;
  };

  it('creates a key that is shown once and stored only as its hash', async () => {
    const serviceId = await createService('keys-create');
    const res = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'ci pipeline' });
    expect(res.status).toBe(201);
    const key = res.body.key as string;
    expect(key).toMatch(KEY_FORMAT);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      serviceId,
      name: 'ci pipeline',
      prefix: key.slice(0, 12),
      scopes: ['read', 'register'],
      createdAt: expect.any(String),
      key,
    });
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();

    const list = await admin.get(`/api/services/${serviceId}/apikeys`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: res.body.id,
        serviceId,
        name: 'ci pipeline',
        prefix: key.slice(0, 12),
        scopes: ['read', 'register'],
        createdAt: res.body.createdAt,
        createdBy: expect.any(String),
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    expect(list.text).not.toContain(key);
    expect(list.text).not.toContain(key.slice(12));

    const rows = await storedKeys(serviceId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(rows[0]!.key_prefix).toBe(key.slice(0, 12));
    expect(JSON.stringify(rows)).not.toContain(key.slice(12));

    const second = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'ci pipeline' });
    expect(second.status).toBe(201);
    expect(second.body.key).not.toBe(key);
    expect((await admin.get(`/api/services/${serviceId}/apikeys`)).body).toHaveLength(2);
  });

  it('revokes a key, keeping it listed with its revocation time', async () => {
    const serviceId = await createService('keys-revoke');
    const created = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'to revoke' })).body;
    const res = await admin.delete(`/api/services/${serviceId}/apikeys/${created.id}`);
    expect(res.status).toBe(204);
    const list = (await admin.get(`/api/services/${serviceId}/apikeys`)).body;
    expect(list).toHaveLength(1);
    expect(Date.parse(list[0].revokedAt)).not.toBeNaN();
    const rows = await storedKeys(serviceId);
    expect(rows[0]!.revoked_at).not.toBeNull();

    // Revoking again changes nothing and records nothing more.
    expect((await admin.delete(`/api/services/${serviceId}/apikeys/${created.id}`)).status).toBe(204);
    expect((await admin.get(`/api/services/${serviceId}/apikeys`)).body).toEqual(list);
    expect((await auditOf(serviceId)).filter((r) => r.action === 'Deleted')).toHaveLength(1);
  });

  it('audits creation and revocation without the key or its hash', async () => {
    const serviceId = await createService('keys-audit');
    const created = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'audited' })).body;
    await admin.delete(`/api/services/${serviceId}/apikeys/${created.id}`);
    const records = await auditOf(serviceId);
    expect(records.map((r) => [r.entityType, r.action, r.entityId])).toEqual([
      ['ApiKey', 'Deleted', created.id],
      ['ApiKey', 'Created', created.id],
    ]);
    expect(records[1]!.userName).toBe('admin');
    expect(records[1]!.changes.after).toMatchObject({ id: created.id, name: 'audited', prefix: created.prefix });
    expect(records[0]!.changes.after.revokedAt).toEqual(expect.any(String));
    const rows = await storedKeys(serviceId);
    const text = JSON.stringify(records);
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(rows[0]!.key_hash);
    // The lower-case name is accepted too, and other types leave API keys out.
    expect(await auditOf(serviceId, 'apikey')).toHaveLength(2);
    expect(await auditOf(serviceId, 'Service')).toHaveLength(1);
  });

  it('answers 404 for an unknown service or key and for a key of another service', async () => {
    const serviceA = await createService('keys-a');
    const serviceB = await createService('keys-b');
    const keyOfA = (await admin.post(`/api/services/${serviceA}/apikeys`, { name: 'a' })).body;

    expect((await admin.post(`/api/services/${MISSING}/apikeys`, { name: 'x' })).status).toBe(404);
    expect((await admin.get(`/api/services/${MISSING}/apikeys`)).status).toBe(404);
    expect((await admin.delete(`/api/services/${serviceA}/apikeys/${MISSING}`)).status).toBe(404);
    expect((await admin.delete(`/api/services/${MISSING}/apikeys/${keyOfA.id}`)).status).toBe(404);
    const wrongService = await admin.delete(`/api/services/${serviceB}/apikeys/${keyOfA.id}`);
    expect(wrongService.status).toBe(404);
    expect(wrongService.headers.get('content-type')).toContain('application/problem+json');

    expect((await storedKeys(serviceA))[0]!.revoked_at).toBeNull();
    expect(await auditOf(serviceB)).toHaveLength(0);
    expect(await storedKeys(serviceB)).toHaveLength(0);
  });

  it.each<[object]>([[{}], [{ name: '' }], [{ name: 'x'.repeat(201) }], [{ name: 42 }]])(
    'rejects %j with 400',
    async (body) => {
      const serviceId = await createService('keys-invalid');
      const res = await admin.post(`/api/services/${serviceId}/apikeys`, body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveProperty('name');
      expect(await storedKeys(serviceId)).toHaveLength(0);
    },
  );

  it('answers 400 for malformed ids', async () => {
    const serviceId = await createService('keys-bad-ids');
    expect((await admin.get('/api/services/not-a-uuid/apikeys')).status).toBe(400);
    expect((await admin.delete(`/api/services/${serviceId}/apikeys/not-a-uuid`)).status).toBe(400);
  });

  it('is for admins only: 403 for a developer, 401 without a session', async () => {
    const serviceId = await createService('keys-policy');
    const existing = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'kept' })).body;
    const developer = await server.userWithRole('key-developer', 'developer');
    expect((await developer.post(`/api/services/${serviceId}/apikeys`, { name: 'x' })).status).toBe(403);
    expect((await developer.get(`/api/services/${serviceId}/apikeys`)).status).toBe(403);
    expect((await developer.delete(`/api/services/${serviceId}/apikeys/${existing.id}`)).status).toBe(403);
    const anonymous = server.client();
    expect((await anonymous.post(`/api/services/${serviceId}/apikeys`, { name: 'x' })).status).toBe(401);
    expect((await anonymous.get(`/api/services/${serviceId}/apikeys`)).status).toBe(401);

    const rows = await storedKeys(serviceId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.revoked_at).toBeNull();
  });

  it('deletes the keys of a deleted service', async () => {
    const serviceId = await createService('keys-cascade');
    await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'gone with the service' });
    expect((await admin.delete(`/api/services/${serviceId}`)).status).toBe(204);
    expect(await storedKeys(serviceId)).toHaveLength(0);
  });

  it('documents the endpoints in OpenAPI', async () => {
    const doc = (await admin.get('/api/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/services/{serviceId}/apikeys', '/api/services/{serviceId}/apikeys/{keyId}']),
    );
    const created = doc.paths['/api/services/{serviceId}/apikeys'].post.responses['201'];
    expect(JSON.stringify(created)).toContain('"key"');
  });
});
