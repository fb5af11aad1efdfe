import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

describe.each(databaseKinds)('audit log API on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let entryId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'audited' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    entryId = (
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 6, rawValue: '1' })
    ).body.id;
    let generation = 1;
    for (let i = 0; i < 6; i++) {
      const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: entryId, rawValue: String(i), generation },
      ]);
      generation = res.body[0].generation;
    }
    await server.userWithRole('someone', 'developer');
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: 'someone' })).status).toBe(201);
  });
  afterAll(() => server.close());

  const search = (body: Record<string, unknown>) => admin.post('/api/auditlogs/search', body);

  it('lists every change of a service newest first with who, what and when', async () => {
    const res = await search({ serviceId, pageSize: 100 });
    expect(res.status).toBe(200);
    expect(res.body.nextPageToken).toBe('');
    const actions = res.body.entities.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['MemberAdded', ...Array(6).fill('ValueSet'), 'Created', 'Created', 'Created']);
    const nums = res.body.entities.map((e: { num: number }) => e.num);
    expect([...nums].sort((a, b) => b - a)).toEqual(nums);
    const valueSet = res.body.entities[1];
    expect(Object.keys(valueSet).sort()).toEqual(
      [
        'action',
        'changes',
        'entityId',
        'entityType',
        'id',
        'num',
        'serviceId',
        'timestamp',
        'userId',
        'userName',
        'versionId',
        'versionLabel',
      ].sort(),
    );
    expect(valueSet).toMatchObject({
      serviceId,
      entityType: 'Entry',
      entityId: entryId,
      userId: 'admin',
      userName: 'admin',
      versionId,
      versionLabel: '1',
      changes: { before: { rawValue: '4', generation: 6 }, after: { rawValue: '5', generation: 7 } },
    });
    const member = res.body.entities[0];
    expect([member.versionId, member.versionLabel]).toEqual([null, null]);
    expect(Date.parse(valueSet.timestamp)).not.toBeNaN();
  });

  it('pages with the returned token until the token is empty', async () => {
    const all = (await search({ serviceId, pageSize: 500 })).body.entities.map((e: { id: string }) => e.id);
    const paged: string[] = [];
    let token: string | null = null;
    do {
      const res: { status: number; body: { entities: Array<{ id: string }>; nextPageToken: string } } = await search({
        serviceId,
        pageSize: 3,
        pageToken: token,
      });
      expect(res.status).toBe(200);
      paged.push(...res.body.entities.map((e) => e.id));
      token = res.body.nextPageToken;
    } while (token);
    expect(paged).toEqual(all);
  });

  it('filters by entity type in any case', async () => {
    for (const [filter, expected] of [
      ['entry', 7],
      ['VERSION', 1],
      ['Service', 1],
      ['member', 1],
    ] as const) {
      const res = await search({ serviceId, entityType: filter, pageSize: 100 });
      expect(res.status).toBe(200);
      expect(res.body.entities).toHaveLength(expected);
    }
    expect((await search({ serviceId, entityType: null })).body.entities.length).toBeGreaterThan(0);
  });

  it('rejects bad filters with 400', async () => {
    expect((await search({ serviceId, entityType: 'Planet' })).status).toBe(400);
    expect((await search({ serviceId: 'nope' })).status).toBe(400);
    expect((await search({})).status).toBe(400);
    expect((await search({ serviceId, pageToken: '!!' })).status).toBe(400);
  });

  it('writes no audit record for a rejected change', async () => {
    const before = (await search({ serviceId, pageSize: 500 })).body.entities.length;
    expect(
      (
        await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: entryId, rawValue: '9', generation: 1 },
        ])
      ).status,
    ).toBe(409);
    expect((await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1 })).status).toBe(
      409,
    );
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: 'someone' })).status).toBe(409);
    expect((await search({ serviceId, pageSize: 500 })).body.entities.length).toBe(before);
  });

  it('is empty for a service that never existed', async () => {
    const res = await search({ serviceId: '00000000-0000-4000-8000-000000000000' });
    expect(res.body).toEqual({ entities: [], nextPageToken: '' });
  });
});
