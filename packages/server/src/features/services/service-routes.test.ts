import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import {
  startTestServer,
  type ApiClient,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(databaseKinds)('services API on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
  });
  afterAll(() => server.close());

  async function createService(name: string, extra: Record<string, unknown> = {}) {
    const res = await admin.post('/api/services', { name, ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: string; num: number; name: string };
  }

  async function serviceCount(): Promise<number> {
    const res = await admin.post('/api/services/search', { pageSize: 500 });
    return (res.body.entities as unknown[]).length;
  }

  it('creates a service with every field and null for the ones not sent', async () => {
    const res = await admin.post('/api/services', {
      name: 'billing',
      description: 'Invoices',
      repositoryUrl: 'https://git.example.com/billing',
      contactEmail: 'billing@example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'billing',
      description: 'Invoices',
      repositoryUrl: 'https://git.example.com/billing',
      contactEmail: 'billing@example.com',
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(res.body.num)).toBe(true);
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();

    const minimal = await admin.post('/api/services', { name: 'minimal' });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({ description: null, repositoryUrl: null, contactEmail: null });

    const got = await admin.get(`/api/services/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'ok', repositoryUrl: 'ftp://example.com/repo' }, 'repositoryUrl'],
    [{ name: 'ok', repositoryUrl: 'not a url' }, 'repositoryUrl'],
    [{ name: 'ok', contactEmail: 'not-an-email' }, 'contactEmail'],
    [{ name: 42 }, 'name'],
  ])('rejects the invalid body %j with 400 naming %s, and creates nothing', async (body, field) => {
    const before = await serviceCount();
    const res = await admin.post('/api/services', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({
      status: 400,
      title: 'Bad Request',
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
    });
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await serviceCount()).toBe(before);
  });

  it('updates a service and records before and after in the audit log', async () => {
    const created = await createService('to-update');
    const res = await admin.put(`/api/services/${created.id}`, { name: 'updated', contactEmail: 'a@example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      num: created.num,
      name: 'updated',
      contactEmail: 'a@example.com',
    });

    const audit = await admin.post('/api/auditlogs/search', { serviceId: created.id });
    expect(audit.body.entities.map((e: { action: string }) => e.action)).toEqual(['Updated', 'Created']);
    expect(audit.body.entities[0]).toMatchObject({
      entityType: 'Service',
      entityId: created.id,
      userId: 'admin',
      changes: { before: { name: 'to-update' }, after: { name: 'updated' } },
    });
  });

  it('answers 404 for an unknown service and 400 for an id that is not a UUID', async () => {
    expect((await admin.get(`/api/services/${MISSING}`)).status).toBe(404);
    expect((await admin.put(`/api/services/${MISSING}`, { name: 'x' })).status).toBe(404);
    expect((await admin.delete(`/api/services/${MISSING}`)).status).toBe(404);
    const bad = await admin.get('/api/services/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('serviceId');
  });

  it('deletes a service with its versions and entries, keeping its audit trail', async () => {
    const service = await createService('to-delete');
    const version = await admin.post(`/api/configversions/${service.id}`, { versionLabel: '1.0' });
    expect(version.status).toBe(201);
    const entry = await admin.post(`/api/configentries/${service.id}/${version.body.id}`, {
      key: 'A',
      valueType: 1,
      rawValue: 'x',
    });
    expect(entry.status).toBe(201);

    const res = await admin.delete(`/api/services/${service.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await admin.get(`/api/services/${service.id}`)).status).toBe(404);
    expect((await admin.get(`/api/configversions/${service.id}/${version.body.id}`)).status).toBe(404);
    expect((await admin.get(`/api/configentries/${service.id}/${version.body.id}`)).status).toBe(404);

    const audit = await admin.post('/api/auditlogs/search', { serviceId: service.id });
    expect(audit.body.entities[0]).toMatchObject({ action: 'Deleted', entityType: 'Service' });
  });

  it('searches by a case-insensitive substring of the name, in num order, page by page', async () => {
    const prefix = `Paged${kind}`;
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await createService(`${prefix}-${i}`));
    await createService('unrelated-name');

    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse<{ entities: Array<{ id: string }>; nextPageToken: string }> = await admin.post(
        '/api/services/search',
        {
          name: prefix.toLowerCase(),
          pageSize: 3,
          pageToken: token,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.entities.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.entities.map((s) => s.id));
      token = res.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((s) => s.id));
  });

  it('lists services at GET /api/services: the same pages, filters and access as the search', async () => {
    const prefix = `Listed${kind}`;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createService(`${prefix}-${i}`));
    const seen: string[] = [];
    let token = '';
    do {
      const query = new URLSearchParams({ name: prefix.toLowerCase(), pageSize: '2', pageToken: token });
      const res: ApiResponse<{ entities: Array<{ id: string }>; nextPageToken: string }> = await admin.get(
        `/api/services?${query}`,
      );
      expect(res.status, res.text).toBe(200);
      const searched = await admin.post('/api/services/search', { name: prefix, pageSize: 2, pageToken: token });
      expect(res.body).toEqual(searched.body);
      seen.push(...res.body.entities.map((s) => s.id));
      token = res.body.nextPageToken;
    } while (token);
    expect(seen).toEqual(made.map((s) => s.id));

    expect((await admin.get('/api/services?pageToken=garbage!')).status).toBe(400);
    expect((await admin.get('/api/services?pageSize=ten')).status).toBe(400);
    expect((await server.client().get('/api/services')).status).toBe(401);
    // An API key sees its own service only, as in the search.
    const key = (await admin.post(`/api/services/${made[0]?.id}/apikeys`, { name: 'lister', scopes: ['read'] })).body
      .key as string;
    const keyList = await server.client().get('/api/services', { headers: { authorization: `Bearer ${key}` } });
    expect(keyList.body.entities.map((s: { id: string }) => s.id)).toEqual([made[0]?.id]);
  });

  it('treats LIKE wildcards in the name filter literally', async () => {
    await createService('with_underscore');
    await createService('withXunderscore');
    const res = await admin.post('/api/services/search', { name: 'with_' });
    expect(res.body.entities.map((s: { name: string }) => s.name)).toEqual(['with_underscore']);
  });

  it('clamps the page size and rejects a forged page token', async () => {
    const zero = await admin.post('/api/services/search', { pageSize: 0 });
    expect(zero.status).toBe(200);
    expect(zero.body.entities).toHaveLength(1);
    const huge = await admin.post('/api/services/search', { pageSize: 100000 });
    expect(huge.status).toBe(200);
    const bad = await admin.post('/api/services/search', { pageToken: 'garbage!' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('pageToken');
    const notInt = await admin.post('/api/services/search', { pageSize: 'ten' });
    expect(notInt.status).toBe(400);
  });

  it('manages members: list, add, duplicate, remove, unknown', async () => {
    const service = await createService('with-members');
    const base = `/api/services/${service.id}/members`;
    expect((await admin.get(base)).body).toEqual([]);
    await server.userWithRole('member-dev', 'developer');
    const added = await admin.post(base, { userId: 'member-dev' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ userId: 'member-dev', addedBy: 'admin' });
    expect((await admin.post(base, { userId: 'member-dev' })).status).toBe(409);
    expect((await admin.post(base, { userId: '' })).status).toBe(400);
    expect((await admin.get(base)).body).toHaveLength(1);
    expect((await admin.delete(`${base}/member-dev`)).status).toBe(204);
    expect((await admin.delete(`${base}/member-dev`)).status).toBe(404);
    expect((await admin.get(`/api/services/${MISSING}/members`)).status).toBe(404);
    expect((await admin.post(`/api/services/${MISSING}/members`, { userId: 'x' })).status).toBe(404);

    const audit = await admin.post('/api/auditlogs/search', { serviceId: service.id, entityType: 'member' });
    expect(audit.body.entities.map((e: { action: string }) => e.action)).toEqual(['MemberRemoved', 'MemberAdded']);
  });

  it('answers 400 naming userId for a member who is not a Local user, and adds nobody', async () => {
    const service = await createService('members-must-exist');
    const base = `/api/services/${service.id}/members`;
    for (const userId of ['dev@example.com', 'no-such-user']) {
      const res = await admin.post(base, { userId });
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveProperty('userId');
      expect(res.body.detail).toContain(userId);
    }
    expect((await admin.get(base)).body).toEqual([]);
    const audit = await admin.post('/api/auditlogs/search', { serviceId: service.id, entityType: 'member' });
    expect(audit.body.entities).toEqual([]);
  });

  it('answers 409 for a name another service has in any case, on create and on update, and changes nothing', async () => {
    const first = await createService('Inventory Ärger');
    const second = await createService('shipping');
    const before = await serviceCount();
    for (const name of ['Inventory Ärger', 'inventory ärger', 'INVENTORY ÄRGER']) {
      const created = await admin.post('/api/services', { name });
      expect(created.status).toBe(409);
      expect(created.body.detail).toContain(name);
      const renamed = await admin.put(`/api/services/${second.id}`, { name });
      expect(renamed.status).toBe(409);
    }
    expect(await serviceCount()).toBe(before);
    expect((await admin.get(`/api/services/${second.id}`)).body.name).toBe('shipping');
    // A service may change the case of its own name.
    const own = await admin.put(`/api/services/${first.id}`, { name: 'INVENTORY ärger' });
    expect(own.status).toBe(200);
    expect(own.body.name).toBe('INVENTORY ärger');
  });

  it('lets exactly one of ten concurrent creates with one name through', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin.post('/api/services', { name: i % 2 ? 'Racing Name' : 'racing name' }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
  });
});
