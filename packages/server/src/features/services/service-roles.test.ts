import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * What each role of a service may do: viewers read, editors also change values, owners also manage
 * the service. canAll users act as owners everywhere; deleting a service stays canAll's. Every
 * refusal is a 403 that changes nothing.
 */
describe.each(databaseKinds)('service roles on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  const as: Record<'viewer' | 'editor' | 'owner' | 'outsider', ApiClient> = {} as never;

  const entries = async () =>
    (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
      id: string;
      key: string;
      rawValue: string | null;
      generation: number;
    }>;
  const entry = async (key: string) => (await entries()).find((e) => e.key === key)!;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `roles-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: 'a' });
    for (const role of ['viewer', 'editor', 'owner', 'outsider'] as const) {
      as[role] = await server.userWithRole(`${role}-${kind}`, 'developer');
      if (role !== 'outsider') {
        const added = await admin.post(`/api/services/${serviceId}/members`, { userId: `${role}-${kind}`, role });
        expect(added.status).toBe(201);
        expect(added.body).toMatchObject({ userId: `${role}-${kind}`, role });
      }
    }
  });
  afterAll(() => server.close());

  it('lists members with their roles, editor by default, and lets an owner change a role', async () => {
    const plain = await server.userWithRole(`plain-${kind}`, 'developer');
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: `plain-${kind}` })).body.role).toBe(
      'editor',
    );
    const changed = await as.owner.put(`/api/services/${serviceId}/members/plain-${kind}`, { role: 'viewer' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ userId: `plain-${kind}`, role: 'viewer' });
    const members = (await plain.get(`/api/services/${serviceId}/members`)).body as Array<{
      userId: string;
      role: string;
    }>;
    expect(members.find((m) => m.userId === `plain-${kind}`)?.role).toBe('viewer');
    expect((await admin.put(`/api/services/${serviceId}/members/plain-${kind}`, { role: 'boss' })).status).toBe(400);
    expect((await admin.put(`/api/services/${serviceId}/members/nobody-${kind}`, { role: 'owner' })).status).toBe(404);
  });

  it('lets everyone with a role, and canChange users outside it, read', async () => {
    for (const who of ['viewer', 'editor', 'owner', 'outsider'] as const) {
      expect((await as[who].get(`/api/configentries/${serviceId}/${versionId}`)).status, who).toBe(200);
      expect((await as[who].get(`/api/configversions/${serviceId}/${versionId}/export?format=env`)).status, who).toBe(
        200,
      );
      expect((await as[who].post('/api/auditlogs/search', { serviceId })).status, who).toBe(200);
    }
  });

  it('lets editors and owners set values, and refuses viewers and outsiders with nothing changed', async () => {
    for (const [who, status] of [
      ['viewer', 403],
      ['outsider', 403],
      ['editor', 200],
      ['owner', 200],
    ] as const) {
      const a = await entry('A');
      const res = await as[who].put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: a.id, rawValue: `by ${who}`, generation: a.generation },
      ]);
      expect(res.status, `${who}: ${res.text}`).toBe(status);
      expect((await entry('A')).rawValue).toBe(status === 200 ? `by ${who}` : a.rawValue);
    }
    const refused = await as.viewer.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: (await entry('A')).id, rawValue: 'x', generation: 1 },
    ]);
    expect(refused.body.detail).toMatch(/viewer.*needs editor/);
  });

  it('lets editors restore and import values but not create keys; owners may', async () => {
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=env`;
    const dry = await as.editor.post(`${url}&dryRun=true`, 'A=imported\n', { contentType: 'text/plain' });
    const applied = await as.editor.post(
      `${url}&dryRun=false&basedOn=${encodeURIComponent(dry.body.basedOn)}`,
      'A=imported\n',
      {
        contentType: 'text/plain',
      },
    );
    expect(applied.status, applied.text).toBe(200);
    const viewerDry = await as.viewer.post(`${url}&dryRun=true`, 'A=viewer\n', { contentType: 'text/plain' });
    expect(viewerDry.status).toBe(200);
    const viewerApply = await as.viewer.post(
      `${url}&dryRun=false&basedOn=${encodeURIComponent(viewerDry.body.basedOn)}`,
      'A=viewer\n',
      { contentType: 'text/plain' },
    );
    expect(viewerApply.status).toBe(403);

    const create = `${url}&createMissing=true`;
    for (const [who, status] of [
      ['editor', 403],
      ['owner', 200],
    ] as const) {
      const body = `New__${who}=1\n`;
      const d = await as[who].post(`${create}&dryRun=true`, body, { contentType: 'text/plain' });
      const res = await as[who].post(`${create}&dryRun=false&basedOn=${encodeURIComponent(d.body.basedOn)}`, body, {
        contentType: 'text/plain',
      });
      expect(res.status, `${who}: ${res.text}`).toBe(status);
    }
    const keys = (await entries()).map((e) => e.key);
    expect(keys).toContain('New:owner');
    expect(keys).not.toContain('New:editor');
    expect((await entry('A')).rawValue).toBe('imported');
  });

  it('lets owners manage the service, and editors and viewers not', async () => {
    const attempts = (c: ApiClient, tag: string) => [
      () => c.put(`/api/services/${serviceId}`, { name: `roles-${kind}`, description: tag }),
      () => c.post(`/api/configversions/${serviceId}`, { versionLabel: `by-${tag}` }),
      () => c.post(`/api/configentries/${serviceId}/${versionId}`, { key: `Key:${tag}`, valueType: 1 }),
      () => c.post(`/api/services/${serviceId}/apikeys`, { name: `key ${tag}` }),
      () => c.post(`/api/services/${serviceId}/members`, { userId: `outsider-${kind}`, role: 'viewer' }),
    ];
    for (const who of ['viewer', 'editor'] as const) {
      for (const attempt of attempts(as[who], who)) expect((await attempt()).status, who).toBe(403);
    }
    for (const attempt of attempts(as.owner, 'owner')) expect([200, 201]).toContain((await attempt()).status);
    const versions = JSON.stringify((await admin.get(`/api/configversions/${serviceId}`)).body);
    expect(versions).toContain('by-owner');
    expect(versions).not.toContain('by-editor');
    // Deleting a service stays canAll's.
    expect((await as.owner.delete(`/api/services/${serviceId}`)).status).toBe(403);
    expect((await as.owner.post('/api/services', { name: `owned-${kind}` })).status).toBe(403);
  });
});
