import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(databaseKinds)('config versions API on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'versions-suite' })).body.id;
  });
  afterAll(() => server.close());

  const versions = async (sid = serviceId) =>
    (await admin.get(`/api/configversions/${sid}`)).body as Array<{ id: string; versionLabel: string }>;

  it('creates, lists, gets, updates and deletes a version', async () => {
    const created = await admin.post(`/api/configversions/${serviceId}`, {
      versionLabel: '1.0.0',
      description: 'first',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ serviceId, versionLabel: '1.0.0', description: 'first' });
    expect(Object.keys(created.body).sort()).toEqual([
      'createdAt',
      'description',
      'id',
      'protected',
      'serviceId',
      'updatedAt',
      'versionLabel',
    ]);

    const list = await admin.get(`/api/configversions/${serviceId}`);
    expect(list.status).toBe(200);
    expect(list.body.map((v: { id: string }) => v.id)).toContain(created.body.id);

    const got = await admin.get(`/api/configversions/${serviceId}/${created.body.id}`);
    expect(got.body).toEqual(created.body);

    const updated = await admin.put(`/api/configversions/${serviceId}/${created.body.id}`, {
      versionLabel: '1.0.1',
      description: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, versionLabel: '1.0.1', description: null });
    // Without a label only what is sent changes: protection alone keeps the label and description.
    await admin.put(`/api/configversions/${serviceId}/${created.body.id}`, { versionLabel: '1.0.1', description: 'd' });
    const protectedOnly = await admin.put(`/api/configversions/${serviceId}/${created.body.id}`, { protected: true });
    expect(protectedOnly.body).toMatchObject({ versionLabel: '1.0.1', description: 'd', protected: true });
    expect((await admin.put(`/api/configversions/${serviceId}/${created.body.id}`, {})).status).toBe(400);

    expect((await admin.delete(`/api/configversions/${serviceId}/${created.body.id}`)).status).toBe(204);
    expect((await admin.get(`/api/configversions/${serviceId}/${created.body.id}`)).status).toBe(404);

    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Version' });
    expect(audit.body.entities.slice(0, 3).map((e: { action: string }) => e.action)).toEqual([
      'Deleted',
      'Updated',
      'Updated',
    ]);
  });

  it('answers 409 for a duplicate label, on create and on update, and changes nothing', async () => {
    const a = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'dup-a' });
    const b = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'dup-b' });
    const before = await versions();
    const dup = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'dup-a' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: 409, title: 'Conflict' });
    const rename = await admin.put(`/api/configversions/${serviceId}/${b.body.id}`, { versionLabel: 'dup-a' });
    expect(rename.status).toBe(409);
    expect(await versions()).toEqual(before);
    // The same label in another service is fine.
    const other = (await admin.post('/api/services', { name: 'other' })).body.id;
    expect((await admin.post(`/api/configversions/${other}`, { versionLabel: 'dup-a' })).status).toBe(201);
    expect(a.status).toBe(201);
  });

  it('gives one version and one 201 when the same label is created concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'race' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    expect((await versions()).filter((v) => v.versionLabel === 'race')).toHaveLength(1);
  });

  it('answers 404 for unknown services and versions and versions of another service', async () => {
    expect((await admin.get(`/api/configversions/${MISSING}`)).status).toBe(404);
    expect((await admin.post(`/api/configversions/${MISSING}`, { versionLabel: 'x' })).status).toBe(404);
    const v = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'scoped' })).body.id;
    const other = (await admin.post('/api/services', { name: 'scope-check' })).body.id;
    expect((await admin.get(`/api/configversions/${other}/${v}`)).status).toBe(404);
    expect((await admin.put(`/api/configversions/${other}/${v}`, { versionLabel: 'y' })).status).toBe(404);
    expect((await admin.delete(`/api/configversions/${other}/${v}`)).status).toBe(404);
    expect((await admin.get(`/api/configversions/${serviceId}/${v}`)).status).toBe(200);
  });

  it('starts a new version as a copy of another one: entries, values and details, audited', async () => {
    const from = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'copy-source' })).body.id;
    const entries = `/api/configentries/${serviceId}`;
    await admin.post(`${entries}/${from}`, { key: 'Db:Pool', valueType: 6, rawValue: '5', groupName: 'Db' });
    await admin.post(`${entries}/${from}`, {
      key: 'Db:Mode',
      valueType: 5,
      rawValue: 'Live',
      enumDefinition: 'Live|Test',
      description: 'how to connect',
    });
    const copy = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'copy', copyFrom: from });
    expect(copy.status, copy.text).toBe(201);
    const pick = (list: Array<Record<string, unknown>>) =>
      list.map(({ key, rawValue, valueType, enumDefinition, description, groupName }) => ({
        key,
        rawValue,
        valueType,
        enumDefinition,
        description,
        groupName,
      }));
    const copied = (await admin.get(`${entries}/${copy.body.id}`)).body;
    expect(pick(copied)).toEqual(pick((await admin.get(`${entries}/${from}`)).body));
    expect(copied).toHaveLength(2);
    const audit = await admin.post('/api/auditlogs/search', { serviceId, versionId: copy.body.id });
    expect(audit.body.entities.map((r: { action: string }) => r.action)).toEqual(['Created', 'Created']);
  });

  it('refuses to start from a version of another service or none, and creates nothing', async () => {
    const other = (await admin.post('/api/services', { name: 'copy-elsewhere' })).body.id;
    const foreign = (await admin.post(`/api/configversions/${other}`, { versionLabel: 'theirs' })).body.id;
    const before = await versions();
    for (const copyFrom of [foreign, MISSING]) {
      const res = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'nope', copyFrom });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['copyFrom']);
    }
    expect((await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'nope', copyFrom: 'x' })).status).toBe(
      400,
    );
    expect(await versions()).toEqual(before);
  });

  it.each([
    [{}, 'versionLabel'],
    [{ versionLabel: '' }, 'versionLabel'],
    [{ versionLabel: 7 }, 'versionLabel'],
    [{ versionLabel: 'ok', description: 5 }, 'description'],
  ])('rejects %j with 400 naming %s', async (body, field) => {
    const before = await versions();
    const res = await admin.post(`/api/configversions/${serviceId}`, body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await versions()).toEqual(before);
  });
});
