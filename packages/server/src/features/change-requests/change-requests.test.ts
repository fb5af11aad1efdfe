import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

/**
 * A protected version changes only through change requests that another editor or owner approved;
 * every direct change answers 409 and changes nothing, while applications still register it.
 */
describe.each(databaseKinds)('protected versions and change requests on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let author: ApiClient;
  let reviewer: ApiClient;
  let viewer: ApiClient;
  let grpc: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  let base: string;

  const entries = async () => (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Entry[];
  const entry = async (key: string) => (await entries()).find((e) => e.key === key)!;
  const auditCount = async () =>
    (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).body.entities.length;
  const open = async (client: ApiClient, changes: Array<[string, string]>, title = 'a change') => {
    const body = {
      title,
      changes: await Promise.all(
        changes.map(async ([key, rawValue]) => {
          const e = await entry(key);
          return { id: e.id, rawValue, generation: e.generation };
        }),
      ),
    };
    const res = await client.post(base, body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; status: string; author: string; approvals: unknown[] };
  };

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `reviewed-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    for (const key of ['Timeout', 'Mode', 'Limit']) {
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue: `${key}-0` });
    }
    for (const [name, role] of [
      ['author', 'editor'],
      ['reviewer', 'editor'],
      ['viewer', 'viewer'],
    ] as const) {
      await server.userWithRole(`${name}-${kind}`, 'developer');
      await admin.post(`/api/services/${serviceId}/members`, { userId: `${name}-${kind}`, role });
    }
    author = await server.client().login(`author-${kind}`, `author-${kind}-password-for-tests`);
    reviewer = await server.client().login(`reviewer-${kind}`, `reviewer-${kind}-password-for-tests`);
    viewer = await server.client().login(`viewer-${kind}`, `viewer-${kind}-password-for-tests`);
    base = `/api/configversions/${serviceId}/${versionId}/changerequests`;
    const protect = await admin.put(`/api/configversions/${serviceId}/${versionId}`, {
      versionLabel: '1.0.0',
      protected: true,
    });
    expect(protect.status).toBe(200);
    expect(protect.body.protected).toBe(true);
  });
  afterAll(async () => {
    grpc.close();
    await server.close();
  });

  it('refuses every direct change with 409 and changes nothing; dry runs still answer', async () => {
    const other = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '0.9.0' })).body.id as string;
    await admin.post(`/api/configentries/${serviceId}/${other}`, {
      key: 'Timeout',
      valueType: 1,
      rawValue: 'promoted',
    });
    const before = await entries();
    const audits = await auditCount();
    const t = await entry('Timeout');
    const attempts = [
      () =>
        admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: t.id, rawValue: 'x', generation: t.generation },
        ]),
      () => admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'New', valueType: 1 }),
      () =>
        admin.put(`/api/configentries/${serviceId}/${versionId}/${t.id}`, {
          description: 'x',
          generation: t.generation,
        }),
      () => admin.delete(`/api/configentries/${serviceId}/${versionId}/${t.id}`),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/protected.*change request/);
    }
    const importUrl = `/api/configversions/${serviceId}/${versionId}/import?format=env`;
    const dryImport = await admin.post(`${importUrl}&dryRun=true`, 'Timeout=99\n', { contentType: 'text/plain' });
    expect(dryImport.status).toBe(200);
    expect(dryImport.body.changes[0]).toMatchObject({
      key: 'Timeout',
      current: { id: t.id, generation: t.generation },
    });
    const applyImport = await admin.post(
      `${importUrl}&dryRun=false&basedOn=${encodeURIComponent(dryImport.body.basedOn)}`,
      'Timeout=99\n',
      { contentType: 'text/plain' },
    );
    expect(applyImport.status).toBe(409);
    const restore = `/api/configentries/${serviceId}/${versionId}/restore`;
    const dryRestore = await admin.post(restore, { at: new Date(Date.now() - 3600_000).toISOString() });
    expect(dryRestore.status).toBe(200);
    expect(
      (await admin.post(restore, { at: new Date().toISOString(), dryRun: false, basedOn: dryRestore.body.basedOn }))
        .status,
    ).toBe(409);
    const promote = await admin.post(`/api/configversions/${serviceId}/${versionId}/import?dryRun=true`, {
      fromVersionId: other,
    });
    expect(promote.status).toBe(200);
    expect(
      (
        await admin.post(
          `/api/configversions/${serviceId}/${versionId}/import?dryRun=false&basedOn=${encodeURIComponent(promote.body.basedOn)}`,
          {
            fromVersionId: other,
          },
        )
      ).status,
    ).toBe(409);
    expect(await entries()).toEqual(before);
    expect(await auditCount()).toBe(audits);

    // Applications still start: a registration adds the keys they declare, without their defaults
    // (values of a protected version change only through review; the SDK reads its default for null).
    await registerVersion(grpc, serviceId, '1.0.0', [{ key: 'Declared', value: 'default' }]);
    expect((await entry('Declared'))?.rawValue).toBeNull();
  });

  it('goes open → approved by another → applied as one batch, audited with its approver', async () => {
    const request = await open(
      author,
      [
        ['Timeout', '30'],
        ['Mode', 'live'],
      ],
      'Go live',
    );
    expect(request).toMatchObject({ status: 'open', author: `author-${kind}`, approvals: [] });
    // Not before approval, never by its author.
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
    const self = await author.post(`${base}/${request.id}/approve`);
    expect(self.status).toBe(403);
    expect((await viewer.post(`${base}/${request.id}/approve`)).status).toBe(403);
    const approved = await reviewer.post(`${base}/${request.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvals: [{ userId: `reviewer-${kind}` }] });

    const stream = grpc.subscribe({ serviceId, versionId });
    try {
      await stream.until((s) => s.events.length > 0);
      const seen = stream.events.length;
      const applied = await author.post(`${base}/${request.id}/apply`);
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.status).toBe('applied');
      expect(applied.body.rolloutId).toBeNull(); // applied as one batch
      expect((await entry('Timeout')).rawValue).toBe('30');
      expect((await entry('Mode')).rawValue).toBe('live');
      // One batch: one stream event with both keys.
      await server.flushChanges();
      await stream.until((s) => s.events.length > seen);
      expect(stream.events.slice(seen).map((e) => e.events.map((c) => c.key).sort())).toEqual([['Mode', 'Timeout']]);
    } finally {
      stream.cancel();
    }
    const audit = (await admin.post('/api/auditlogs/search', { serviceId })).body.entities as Array<any>;
    const timeoutId = (await entry('Timeout')).id;
    const valueSet = audit.find((r) => r.action === 'ValueSet' && r.entityId === timeoutId);
    expect(valueSet).toMatchObject({ userId: `author-${kind}` });
    expect(valueSet.changes.changeRequest).toEqual({
      id: request.id,
      title: 'Go live',
      approvers: [`reviewer-${kind}`],
    });
    expect(audit.find((r) => r.entityType === 'ChangeRequest' && r.action === 'Applied')).toMatchObject({
      entityId: request.id,
    });
    expect(audit.find((r) => r.entityType === 'ChangeRequest' && r.action === 'Approved')).toMatchObject({
      userId: `reviewer-${kind}`,
    });
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
  });

  it('drops its approvals when its changes are edited', async () => {
    const request = await open(author, [['Limit', '5']]);
    expect((await reviewer.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    const limit = await entry('Limit');
    const edited = await author.put(`${base}/${request.id}`, {
      title: 'a change',
      changes: [{ id: limit.id, rawValue: '50', generation: limit.generation }],
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: 'open', approvals: [] });
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
    expect((await entry('Limit')).rawValue).toBe('Limit-0');
    expect((await reviewer.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    expect((await reviewer.post(`${base}/${request.id}/apply`)).status).toBe(200);
    expect((await entry('Limit')).rawValue).toBe('50');
  });

  it('refuses a stale apply with nothing changed, and lets exactly one of two racing requests apply', async () => {
    const first = await open(author, [['Mode', 'first']], 'first');
    const second = await open(author, [['Mode', 'second']], 'second');
    for (const r of [first, second]) expect((await reviewer.post(`${base}/${r.id}/approve`)).status).toBe(200);
    const audits = await auditCount();
    const [a, b] = await Promise.all([
      author.post(`${base}/${first.id}/apply`),
      reviewer.post(`${base}/${second.id}/apply`),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.body.detail).toMatch(/stale/);
    const winner = a.status === 200 ? 'first' : 'second';
    expect((await entry('Mode')).rawValue).toBe(winner);
    const statuses = (await admin.get(base)).body as Array<{ id: string; status: string }>;
    expect(statuses.find((r) => r.id === first.id)?.status).toBe(winner === 'first' ? 'applied' : 'stale');
    expect(statuses.find((r) => r.id === second.id)?.status).toBe(winner === 'second' ? 'applied' : 'stale');
    // The winner's value set and its Applied record: nothing of the loser.
    expect(await auditCount()).toBe(audits + 2);
    expect((await admin.get(`${base}?status=stale`)).body.map((r: any) => r.id)).toContain(
      winner === 'first' ? second.id : first.id,
    );
  });

  it('is rejected by an editor or owner and withdrawn only by its author; closed ones stay closed', async () => {
    const rejected = await open(author, [['Timeout', '1']]);
    expect((await viewer.post(`${base}/${rejected.id}/reject`)).status).toBe(403);
    expect((await reviewer.post(`${base}/${rejected.id}/reject`)).body.status).toBe('rejected');
    expect((await reviewer.post(`${base}/${rejected.id}/approve`)).status).toBe(409);
    const withdrawn = await open(author, [['Timeout', '2']]);
    expect((await reviewer.post(`${base}/${withdrawn.id}/withdraw`)).status).toBe(403);
    expect((await author.post(`${base}/${withdrawn.id}/withdraw`)).body.status).toBe('withdrawn');
    expect((await author.post(`${base}/${withdrawn.id}/apply`)).status).toBe(409);
    expect((await entry('Timeout')).rawValue).toBe('30');
    const listed = (await viewer.get(base)).body as Array<{ id: string; createdAt: string }>;
    expect(listed.map((r) => r.createdAt)).toEqual([...listed.map((r) => r.createdAt)].sort().reverse());
    expect((await viewer.post(base, { title: 'x', changes: [] })).status).toBe(403);
  });
});
