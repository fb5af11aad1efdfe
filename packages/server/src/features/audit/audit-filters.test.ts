import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Row {
  id: string;
  num: number;
  action: string;
  entityType: string;
  userId: string | null;
  timestamp: string;
  versionId: string | null;
  versionLabel: string | null;
}

describe.each(databaseKinds)('audit search filters on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let v1: string;
  let v2: string;
  let all: Row[];

  const search = async (filters: Record<string, unknown>) => {
    const res = await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500, ...filters });
    expect(res.status, res.text).toBe(200);
    return res.body.entities as Row[];
  };
  const entryUrl = (versionId: string) => `/api/configentries/${serviceId}/${versionId}`;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'filtered' })).body.id;
    // Two versions with the same key: only the version tells their records apart.
    v1 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    v2 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.1.0' })).body.id;
    const e1 = (await admin.post(entryUrl(v1), { key: 'Payments:TimeoutSeconds', valueType: 6, rawValue: '30' })).body;
    const e2 = (await admin.post(entryUrl(v2), { key: 'Payments:TimeoutSeconds', valueType: 6, rawValue: '30' })).body;
    const dev = await server.userWithRole('Dana', 'developer');
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: 'Dana' })).status).toBe(201);
    const set = await dev.put(`${entryUrl(v2)}/set`, [{ id: e2.id, rawValue: '120', generation: e2.generation }]);
    expect(set.status, set.text).toBe(200);
    await admin.put(`${entryUrl(v1)}/set`, [{ id: e1.id, rawValue: '45', generation: e1.generation }]);
    // Values copied from 1.1.0 into 1.0.0: a promotion, audited as such.
    const promoted = await admin.post(`/api/configversions/${serviceId}/${v1}/import?dryRun=false`, {
      fromVersionId: v2,
    });
    expect(promoted.status, promoted.text).toBe(200);
    all = await search({});
  });
  afterAll(() => server?.close());

  it('names the version of every entry record, and no version for the other records', () => {
    const entryRows = all.filter((r) => r.entityType === 'Entry');
    expect(entryRows).toHaveLength(5);
    for (const r of entryRows) expect([v1, v2]).toContain(r.versionId);
    for (const r of entryRows) expect(r.versionLabel).toBe(r.versionId === v1 ? '1.0.0' : '1.1.0');
    for (const r of all.filter((row) => row.entityType !== 'Entry')) {
      expect([r.versionId, r.versionLabel]).toEqual([null, null]);
    }
  });

  it('audits values copied from another version as Promoted', () => {
    const promoted = all.filter((r) => r.action === 'Promoted');
    expect(promoted.map((r) => [r.versionLabel, r.userId])).toEqual([['1.0.0', 'admin']]);
    expect(all.some((r) => r.action === 'Imported')).toBe(false);
  });

  it('filters by version, user (any case), action and entity type, all combined', async () => {
    expect((await search({ versionId: v2 })).map((r) => r.action)).toEqual(['ValueSet', 'Created']);
    expect((await search({ versionId: v1 })).map((r) => r.action)).toEqual(['Promoted', 'ValueSet', 'Created']);
    expect((await search({ userId: 'dana' })).map((r) => [r.action, r.versionLabel])).toEqual([['ValueSet', '1.1.0']]);
    expect((await search({ action: 'valueset' })).map((r) => r.userId)).toEqual(['admin', 'Dana']);
    expect((await search({ action: 'Created', entityType: 'Version' })).map((r) => r.entityType)).toEqual([
      'Version',
      'Version',
    ]);
    expect(await search({ versionId: v1, userId: 'Dana' })).toEqual([]);
    expect(await search({ userId: 'nobody' })).toEqual([]);
  });

  it('filters by a time range with both ends included, and pages through a filtered search', async () => {
    const oldestFirst = [...all].reverse();
    const middle = oldestFirst[Math.floor(oldestFirst.length / 2)];
    if (!middle) throw new Error('no records');
    const from = await search({ from: middle.timestamp });
    expect(from.map((r) => r.id)).toEqual(all.filter((r) => r.timestamp >= middle.timestamp).map((r) => r.id));
    const to = await search({ to: middle.timestamp });
    expect(to.map((r) => r.id)).toEqual(all.filter((r) => r.timestamp <= middle.timestamp).map((r) => r.id));
    const exactly = await search({ from: middle.timestamp, to: middle.timestamp });
    expect(exactly.map((r) => r.id)).toContain(middle.id);
    // The same instant written with an offset.
    const shifted = new Date(Date.parse(middle.timestamp)).toISOString().replace('Z', '+00:00');
    expect((await search({ from: shifted })).length).toBeGreaterThanOrEqual(from.length);

    const paged: string[] = [];
    let pageToken: string | null = null;
    do {
      const res: { body: { entities: Row[]; nextPageToken: string } } = await admin.post('/api/auditlogs/search', {
        serviceId,
        versionId: v1,
        pageSize: 1,
        pageToken,
      });
      paged.push(...res.body.entities.map((r) => r.id));
      pageToken = res.body.nextPageToken || null;
    } while (pageToken);
    expect(paged).toEqual((await search({ versionId: v1 })).map((r) => r.id));
  });

  it('keeps the label of a renamed version current and of a deleted version as it was last', async () => {
    const v3 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'draft' })).body.id;
    await admin.post(entryUrl(v3), { key: 'A', valueType: 1, rawValue: 'x' });
    expect((await admin.put(`/api/configversions/${serviceId}/${v3}`, { versionLabel: '2.0.0' })).status).toBe(200);
    expect((await search({ versionId: v3 }))[0]?.versionLabel).toBe('2.0.0');
    expect((await admin.delete(`/api/configversions/${serviceId}/${v3}`)).status).toBe(204);
    expect((await search({ versionId: v3 })).map((r) => r.versionLabel)).toEqual(['2.0.0']);
  });

  it('refuses an unknown action, a time without a zone and a range that ends before it starts, naming the field', async () => {
    const before = await search({});
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ action: 'Exploded' }, 'action'],
      [{ from: '2026-05-01' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
      [{ from: '2026-05-02T00:00:00Z', to: '2026-05-01T00:00:00Z' }, 'to'],
      [{ versionId: 'not-a-version' }, 'versionId'],
    ];
    for (const [filters, field] of cases) {
      const res = await admin.post('/api/auditlogs/search', { serviceId, ...filters });
      expect({ filters, status: res.status }).toEqual({ filters, status: 400 });
      expect(JSON.stringify(res.body.errors ?? {})).toContain(field);
    }
    expect(await search({})).toEqual(before);
  });
});
