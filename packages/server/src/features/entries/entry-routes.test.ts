import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
  valueType: number;
  [field: string]: unknown;
}

describe.each(databaseKinds)('config entries API on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'entries-suite' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    base = `/api/configentries/${serviceId}/${versionId}`;
  });
  afterAll(() => server.close());

  const list = async (): Promise<Entry[]> => (await admin.get(base)).body as Entry[];
  const create = async (body: Record<string, unknown>): Promise<Entry> => {
    const res = await admin.post(base, body);
    expect(res.status, res.text).toBe(201);
    return res.body as Entry;
  };
  const noticesDuring = (fn: () => Promise<unknown>) => server.noticesDuring(versionId, fn);

  it('creates an entry with generation 1 and every field of the contract', async () => {
    const entry = await create({
      key: 'Db:ConnectionTimeout',
      name: 'Connection timeout',
      rawValue: '30',
      valueType: 6,
      description: 'seconds',
      groupName: 'DbOptions',
      groupDescription: 'Database',
    });
    expect(entry).toMatchObject({
      key: 'Db:ConnectionTimeout',
      name: 'Connection timeout',
      rawValue: '30',
      valueType: 6,
      enumDefinition: null,
      description: 'seconds',
      groupName: 'DbOptions',
      groupDescription: 'Database',
      generation: 1,
    });
    expect(Object.keys(entry).sort()).toEqual(
      [
        'createdAt',
        'description',
        'enumDefinition',
        'generation',
        'groupDescription',
        'groupName',
        'hasValue',
        'id',
        'isSecret',
        'key',
        'name',
        'overrides',
        'rawValue',
        'schema',
        'updatedAt',
        'valueType',
      ].sort(),
    );
    expect((await list()).find((e) => e.id === entry.id)).toEqual(entry);
  });

  it('answers 409 for a duplicate key and keeps the first entry', async () => {
    const first = await create({ key: 'Dup:Key', valueType: 1, rawValue: 'one' });
    const dup = await admin.post(base, { key: 'Dup:Key', valueType: 1, rawValue: 'two' });
    expect(dup.status).toBe(409);
    const entries = (await list()).filter((e) => e.key === 'Dup:Key');
    expect(entries).toEqual([first]);
  });

  it.each([
    [2, 'true'],
    [2, 'FALSE'],
    [6, '-12'],
    [6, '3.5'],
    [6, '1e3'],
    [3, '2026-11-21T12:30:00Z'],
    [3, '2026-11-21'],
    [3, '2026-11-21T12:30:00.123+01:00'],
    [4, '01:02:03'],
    [4, '-3.04:05:06.1234567'],
    [7, '[1,2]'],
    [8, '{"a":1}'],
    [1, 'anything'],
    [0, 'anything'],
    [5, 'Blue'],
    [5, 'Red'],
    [2, null],
    [6, null],
  ])('accepts type %i value %j', async (valueType, rawValue) => {
    const key = `Valid:T${valueType}:${String(rawValue).replace(/[^a-zA-Z0-9]/g, '_')}:${Math.random().toString(36).slice(2)}`;
    const entry = await create({
      key,
      valueType,
      rawValue,
      enumDefinition: valueType === 5 ? 'Red, Green | Blue' : null,
    });
    expect(entry.rawValue).toBe(rawValue);
  });

  it.each([
    [2, 'yes'],
    [6, 'abc'],
    [6, '1,5'],
    [6, 'NaN'],
    [3, 'yesterday'],
    [3, '2026-13-01'],
    [3, '2026-02-30'],
    [4, '25:00:00'],
    [4, '1:2'],
    [7, '{"a":1}'],
    [7, 'not json'],
    [8, '[1]'],
    [8, '"text"'],
    [5, 'Purple'],
  ])('rejects type %i value %j with 400 and creates nothing', async (valueType, rawValue) => {
    const before = await list();
    const res = await admin.post(base, {
      key: `Invalid:${Math.random().toString(36).slice(2)}`,
      valueType,
      rawValue,
      enumDefinition: valueType === 5 ? 'Red,Green' : null,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty('rawValue');
    expect(await list()).toEqual(before);
  });

  it.each([
    [{ valueType: 1 }, 'key'],
    [{ key: '', valueType: 1 }, 'key'],
    [{ key: 'a::b', valueType: 1 }, 'key'],
    [{ key: ':a', valueType: 1 }, 'key'],
    [{ key: 'k'.repeat(513), valueType: 1 }, 'key'],
    [{ key: 'ok' }, 'valueType'],
    [{ key: 'ok', valueType: 9 }, 'valueType'],
    [{ key: 'ok', valueType: 1.5 }, 'valueType'],
    [{ key: 'ok', valueType: 1, rawValue: 5 }, 'rawValue'],
    [{ key: 'ok', valueType: 1, rawValue: 'x'.repeat(256 * 1024 + 1) }, 'rawValue'],
  ])('rejects the malformed entry %j naming %s', async (body, field) => {
    const before = await list();
    const res = await admin.post(base, body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await list()).toEqual(before);
  });

  it('sets values in a batch, all or nothing, bumping generations and emitting one change', async () => {
    const a = await create({ key: 'Batch:A', valueType: 6, rawValue: '1' });
    const b = await create({ key: 'Batch:B', valueType: 2, rawValue: 'true' });
    const notices = await noticesDuring(async () => {
      const res = await admin.put(`${base}/set`, [
        { id: a.id, rawValue: '2', generation: 1 },
        { id: b.id, rawValue: null, generation: 1 },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(2);
      expect(res.body[0]).toMatchObject({ id: a.id, rawValue: '2', generation: 2 });
      expect(res.body[1]).toMatchObject({ id: b.id, rawValue: null, generation: 2 });
    });
    expect(notices).toHaveLength(1);
    expect(notices[0]?.entries.map((e) => [e.key, e.value, e.generation])).toEqual([
      ['Batch:A', '2', 2],
      ['Batch:B', null, 2],
    ]);
    expect(new Set(notices[0]?.entries.map((e) => e.timestamp)).size).toBe(1);

    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Entry', pageSize: 2 });
    expect(audit.body.entities.map((e: { action: string }) => e.action)).toEqual(['ValueSet', 'ValueSet']);
  });

  describe('rejected batches change nothing', () => {
    let a: Entry;
    let b: Entry;
    beforeAll(async () => {
      a = await create({ key: 'Reject:A', valueType: 6, rawValue: '1' });
      b = await create({ key: 'Reject:B', valueType: 5, rawValue: 'x', enumDefinition: 'x|y' });
    });

    const cases: Array<[string, () => unknown, number]> = [
      [
        'a stale generation (409, naming the entry)',
        () => [
          { id: a.id, rawValue: '5', generation: 1 },
          { id: b.id, rawValue: 'y', generation: 7 },
        ],
        409,
      ],
      [
        'an unknown id (404)',
        () => [
          { id: a.id, rawValue: '5', generation: 1 },
          { id: MISSING, rawValue: '1', generation: 1 },
        ],
        404,
      ],
      [
        'a duplicated id (400)',
        () => [
          { id: a.id, rawValue: '5', generation: 1 },
          { id: a.id, rawValue: '6', generation: 1 },
        ],
        400,
      ],
      [
        'a value that does not fit (400)',
        () => [
          { id: a.id, rawValue: '5', generation: 1 },
          { id: b.id, rawValue: 'z', generation: 1 },
        ],
        400,
      ],
      ['an empty batch (400)', () => [], 400],
      ['a non-array body (400)', () => ({ id: a.id, rawValue: '5', generation: 1 }), 400],
      ['a missing generation (400)', () => [{ id: a.id, rawValue: '5' }], 400],
      ['a non-UUID id (400)', () => [{ id: 'nope', rawValue: '5', generation: 1 }], 400],
    ];
    it.each(cases)('for %s', async (_name, body, status) => {
      const before = await list();
      const notices = await noticesDuring(async () => {
        const res = await admin.put(`${base}/set`, body());
        expect(res.status).toBe(status);
        expect(res.body.status).toBe(status);
        if (status === 409) expect(res.body.detail).toContain('Reject:B');
      });
      expect(notices).toEqual([]);
      expect(await list()).toEqual(before);
    });

    it('for more than 1000 items (400)', async () => {
      const items = Array.from({ length: 1001 }, () => ({ id: a.id, rawValue: '1', generation: 1 }));
      expect((await admin.put(`${base}/set`, items)).status).toBe(400);
    });

    it('for an entry of another version (404)', async () => {
      const v2 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'other-version' })).body.id;
      const res = await admin.put(`/api/configentries/${serviceId}/${v2}/set`, [
        { id: a.id, rawValue: '9', generation: 1 },
      ]);
      expect(res.status).toBe(404);
      expect((await list()).find((e) => e.id === a.id)?.rawValue).toBe('1');
    });
  });

  it('lets exactly one of 10 concurrent sets with the same generation win', async () => {
    const entry = await create({ key: 'Race:Value', valueType: 6, rawValue: '0' });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin.put(`${base}/set`, [{ id: entry.id, rawValue: String(i + 1), generation: 1 }]),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)?.body[0] as Entry;
    const stored = (await list()).find((e) => e.id === entry.id);
    expect(stored).toMatchObject({ generation: 2, rawValue: winner.rawValue });
  });

  it('updates metadata with a generation check; omitted fields keep their value', async () => {
    const entry = await create({
      key: 'Meta:Color',
      valueType: 5,
      rawValue: 'red',
      enumDefinition: 'red,green',
      description: 'd',
    });
    const stale = await admin.put(`${base}/${entry.id}`, { name: 'Colour', generation: 5 });
    expect(stale.status).toBe(409);
    expect((await list()).find((e) => e.id === entry.id)).toEqual(entry);

    const res = await admin.put(`${base}/${entry.id}`, {
      name: 'Colour',
      enumDefinition: 'red|green|blue',
      rawValue: 'blue',
      groupName: 'Ui',
      generation: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Colour',
      enumDefinition: 'red|green|blue',
      rawValue: 'blue',
      groupName: 'Ui',
      description: 'd',
      generation: 2,
      valueType: 5,
    });

    const badValue = await admin.put(`${base}/${entry.id}`, { enumDefinition: 'red', generation: 2 });
    expect(badValue.status).toBe(400);
    expect((await admin.put(`${base}/${entry.id}`, { name: 'x' })).status).toBe(400);
    expect((await admin.put(`${base}/${MISSING}`, { generation: 1 })).status).toBe(404);
    expect((await list()).find((e) => e.id === entry.id)?.generation).toBe(2);
  });

  it('deletes an entry as a tombstone that a backfill can report; the key can be created again, after its generation', async () => {
    const entry = await create({ key: 'Gone:Soon', valueType: 1, rawValue: 'v' });
    await admin.put(`${base}/set`, [{ id: entry.id, rawValue: 'w', generation: 1 }]);
    const notices = await noticesDuring(async () => {
      expect((await admin.delete(`${base}/${entry.id}`)).status).toBe(204);
    });
    expect(notices[0]?.entries).toEqual([expect.objectContaining({ key: 'Gone:Soon', value: null, generation: 3 })]);
    expect((await list()).some((e) => e.key === 'Gone:Soon')).toBe(false);
    expect((await admin.delete(`${base}/${entry.id}`)).status).toBe(404);
    expect((await admin.put(`${base}/set`, [{ id: entry.id, rawValue: 'x', generation: 3 }])).status).toBe(404);

    const tombstones = await server.internals.uow.read.entries.changedSince(versionId, 0);
    expect(tombstones.find((e) => e.key === 'Gone:Soon')).toMatchObject({
      deleted: true,
      rawValue: null,
      generation: 3,
    });

    const again = await create({ key: 'Gone:Soon', valueType: 1, rawValue: 'back' });
    expect(again.generation).toBe(4);
    expect(again.id).not.toBe(entry.id);
  });

  it('gives every change of a version a strictly increasing timestamp, in commit order', async () => {
    const entry = await create({ key: 'Clock:Tick', valueType: 6, rawValue: '0' });
    const notices = await noticesDuring(async () => {
      let generation = 1;
      for (let i = 1; i <= 20; i++) {
        const res = await admin.put(`${base}/set`, [{ id: entry.id, rawValue: String(i), generation }]);
        generation = res.body[0].generation;
      }
    });
    const stamps = notices.map((n) => n.timestamp);
    expect(stamps).toHaveLength(20);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1] as number);
  });

  it('answers 404 for unknown or mismatched service and version', async () => {
    const other = (await admin.post('/api/services', { name: 'entries-other' })).body.id;
    expect((await admin.get(`/api/configentries/${other}/${versionId}`)).status).toBe(404);
    expect((await admin.get(`/api/configentries/${serviceId}/${MISSING}`)).status).toBe(404);
    expect((await admin.post(`/api/configentries/${other}/${versionId}`, { key: 'k', valueType: 1 })).status).toBe(404);
    expect((await admin.get(`/api/configentries/${serviceId}/not-a-uuid`)).status).toBe(400);

    // Writes through another service's path find no version there and change nothing.
    const entry = (
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Mismatch:Key',
        valueType: 1,
        rawValue: 'a',
      })
    ).body;
    const wrong = `/api/configentries/${other}/${versionId}`;
    const set = await admin.put(`${wrong}/set`, [{ id: entry.id, rawValue: 'b', generation: entry.generation }]);
    expect(set.status).toBe(404);
    expect(set.body.detail).toContain(`not found in service ${other}`);
    expect((await admin.put(`${wrong}/${entry.id}`, { generation: entry.generation, name: 'x' })).status).toBe(404);
    expect((await admin.delete(`${wrong}/${entry.id}`)).status).toBe(404);
    const stored = (await list()).find((e) => e.id === entry.id);
    expect(stored).toMatchObject({ rawValue: 'a', generation: entry.generation, name: entry.name });
  });
});

describe.each(databaseKinds)('the change clock on %s', (kind) => {
  it('keeps timestamps strictly increasing when the wall clock goes backwards', async () => {
    let now = 2_000_000_000_000_000;
    const server = await startTestServer({ kind, deps: { clock: { nowMicros: () => (now -= 1_000_000) } } });
    try {
      const admin = await server.admin();
      const sid = (await admin.post('/api/services', { name: 'clock' })).body.id;
      const vid = (await admin.post(`/api/configversions/${sid}`, { versionLabel: '1' })).body.id;
      const seen: number[] = [];
      server.internals.hub.subscribe(vid, (n) => seen.push(n.timestamp));
      for (let i = 0; i < 5; i++) await admin.post(`/api/configentries/${sid}/${vid}`, { key: `K${i}`, valueType: 1 });
      await server.flushChanges();
      expect(seen).toHaveLength(5);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe((seen[i - 1] as number) + 1);
    } finally {
      await server.close();
    }
  });
});
