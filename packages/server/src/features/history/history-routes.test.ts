import { ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
  valueType: number;
}

describe.each(databaseKinds)('entry history and restore on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `history ${kind}` })).body.id;
  });
  afterAll(() => server?.close());

  const newVersion = async () =>
    (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: `v${++counter}` })).body.id as string;
  const base = (versionId: string) => `/api/configentries/${serviceId}/${versionId}`;
  const entries = async (versionId: string) =>
    new Map(((await admin.get(base(versionId))).body as Entry[]).map((e) => [e.key, e]));
  const create = async (versionId: string, key: string, rawValue: string | null, valueType = 1) => {
    const res = await admin.post(base(versionId), { key, rawValue, valueType });
    expect(res.status, res.text).toBe(201);
    return res.body as Entry;
  };
  const set = async (versionId: string, entry: Entry, rawValue: string | null) => {
    const res = await admin.put(`${base(versionId)}/set`, [{ id: entry.id, rawValue, generation: entry.generation }]);
    expect(res.status, res.text).toBe(200);
    return (res.body as Entry[])[0]!;
  };
  const lastChangeIso = async (versionId: string, entryId: string) =>
    (await admin.get(`${base(versionId)}/${entryId}/history?pageSize=1`)).body.entities[0].timestamp as string;

  it('lists value sets, metadata updates and the deletion of an entry, newest first, page by page', async () => {
    const v = await newVersion();
    let a = await create(v, 'Db:Timeout', '10', ValueType.NUMBER);
    a = await set(v, a, '20');
    a = await set(v, a, '30');
    const meta = await admin.put(`${base(v)}/${a.id}`, { description: 'seconds', generation: a.generation });
    expect(meta.status).toBe(200);
    expect((await admin.delete(`${base(v)}/${a.id}`)).status).toBe(204);

    const first = await admin.get(`${base(v)}/${a.id}/history?pageSize=2`);
    expect(first.status).toBe(200);
    const rest = await admin.get(`${base(v)}/${a.id}/history?pageSize=2&pageToken=${first.body.nextPageToken}`);
    const last = await admin.get(`${base(v)}/${a.id}/history?pageSize=2&pageToken=${rest.body.nextPageToken}`);
    expect(last.body.nextPageToken).toBe('');
    const items = [...first.body.entities, ...rest.body.entities, ...last.body.entities];
    expect(items.map((i: any) => [i.action, i.value, i.generation, i.deleted])).toEqual([
      ['Deleted', null, 5, true],
      ['Updated', '30', 4, false],
      ['ValueSet', '30', 3, false],
      ['ValueSet', '20', 2, false],
      ['Created', '10', 1, false],
    ]);
    for (const item of items) {
      expect(item).toMatchObject({ userId: 'admin', userName: 'admin' });
      expect(Date.parse(item.timestamp)).toBe(Math.floor(item.timestampMicros / 1000));
    }
    expect(items.map((i: any) => i.timestampMicros)).toEqual(
      [...items.map((i: any) => i.timestampMicros)].sort((x, y) => y - x),
    );

    // Created again: a new entry with its own history; the old one's stays readable.
    const again = await create(v, 'Db:Timeout', '99', ValueType.NUMBER);
    expect((await admin.get(`${base(v)}/${again.id}/history`)).body.entities.map((i: any) => i.action)).toEqual([
      'Created',
    ]);
    expect((await admin.get(`${base(v)}/${a.id}/history`)).body.entities).toHaveLength(5);
  });

  it('answers 404 for an entry of another version or none, and 400 for a bad page token', async () => {
    const v = await newVersion();
    const other = await newVersion();
    const a = await create(v, 'K', 'v');
    expect((await admin.get(`${base(other)}/${a.id}/history`)).status).toBe(404);
    expect((await admin.get(`${base(v)}/00000000-0000-4000-8000-000000000000/history`)).status).toBe(404);
    expect((await admin.get(`${base(v)}/${a.id}/history?pageToken=nonsense`)).status).toBe(400);
  });

  it('restores a version to a point in time: the dry run shows exactly what applying does, in one stream event', async () => {
    const v = await newVersion();
    const a = await create(v, 'A', 'a1');
    const b = await create(v, 'B', 'b1');
    let c = await create(v, 'C', '1', ValueType.NUMBER);
    const at = await lastChangeIso(v, c.id);

    await set(v, a, 'a2');
    expect((await admin.delete(`${base(v)}/${b.id}`)).status).toBe(204);
    await create(v, 'D', 'd1');
    c = await set(v, c, '2');
    expect((await admin.delete(`${base(v)}/${c.id}`)).status).toBe(204);
    await create(v, 'C', 'now a string'); // C's type changed since

    const dry = await admin.post(`${base(v)}/restore`, { at });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.applied).toBe(false);
    expect(
      dry.body.changes.map((c: any) => [c.key, c.action, c.current?.value ?? null, c.next?.value ?? null]),
    ).toEqual([
      ['A', 'set', 'a2', 'a1'],
      ['B', 'create', null, 'b1'],
      ['C', 'recreate', 'now a string', '1'],
      ['D', 'delete', 'd1', null],
    ]);
    expect([...(await entries(v)).keys()].sort()).toEqual(['A', 'C', 'D']); // a dry run changes nothing

    const grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    const stream = grpc.subscribe({ serviceId, versionId: v });
    try {
      await stream.until((s) => s.events.length === 1); // the backfill
      await server.flushChanges();
      const applied = await admin.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: dry.body.basedOn });
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.applied).toBe(true);
      expect(applied.body.changes).toEqual(dry.body.changes);
      await stream.until((s) => s.events.length >= 2);
      await server.flushChanges();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stream.events).toHaveLength(2);
      // One event: the value sets, then the deletions, then the new entries (C deleted before it is
      // created again).
      const event = stream.events[1]!.events.map((e) => [e.key, e.value ?? null]);
      expect(event).toEqual([
        ['A', 'a1'],
        ['C', null],
        ['D', null],
        ['B', 'b1'],
        ['C', '1'],
      ]);
    } finally {
      stream.cancel();
      grpc.close();
    }
    const after = await entries(v);
    expect([...after.keys()].sort()).toEqual(['A', 'B', 'C']);
    expect([after.get('A')?.rawValue, after.get('B')?.rawValue, after.get('C')?.rawValue]).toEqual(['a1', 'b1', '1']);
    expect(after.get('C')?.valueType).toBe(ValueType.NUMBER);
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Entry', pageSize: 5 });
    expect(audit.body.entities.slice(0, 5).map((r: any) => r.action)).toEqual(Array(5).fill('Restored'));
  });

  it('restores only the keys asked for', async () => {
    const v = await newVersion();
    const a = await create(v, 'A', 'a1');
    let b = await create(v, 'B', 'b1');
    const at = await lastChangeIso(v, b.id);
    await set(v, a, 'a2');
    b = await set(v, b, 'b2');
    const res = await admin.post(`${base(v)}/restore`, { at, keys: ['B'] });
    expect(res.body.changes.map((c: any) => c.key)).toEqual(['B']);
    const applied = await admin.post(`${base(v)}/restore`, {
      at,
      keys: ['B'],
      dryRun: false,
      basedOn: res.body.basedOn,
    });
    expect(applied.status).toBe(200);
    const now = await entries(v);
    expect([now.get('A')?.rawValue, now.get('B')?.rawValue]).toEqual(['a2', 'b1']);
  });

  it('answers 409 and changes nothing when a key changed between the dry run and applying', async () => {
    const v = await newVersion();
    let a = await create(v, 'A', 'a1');
    const at = await lastChangeIso(v, a.id);
    a = await set(v, a, 'a2');
    const dry = await admin.post(`${base(v)}/restore`, { at });
    a = await set(v, a, 'concurrent');
    const before = await entries(v);
    const res = await admin.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: dry.body.basedOn });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('A');
    expect(await entries(v)).toEqual(before);
  });

  it('refuses a bad time, a missing or forged token, and lets a canChange member restore values only', async () => {
    const v = await newVersion();
    let a = await create(v, 'A', 'a1');
    const at = await lastChangeIso(v, a.id);
    a = await set(v, a, 'a2');
    expect((await admin.post(`${base(v)}/restore`, { at: 'yesterday' })).status).toBe(400);
    expect((await admin.post(`${base(v)}/restore`, { at, dryRun: false })).status).toBe(400);
    expect((await admin.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: '!!' })).status).toBe(400);

    const dev = await server.userWithRole(`restorer-${kind}`, 'developer');
    const dry = await dev.post(`${base(v)}/restore`, { at });
    expect(dry.status).toBe(200);
    expect((await dev.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: dry.body.basedOn })).status).toBe(403);
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: `restorer-${kind}` })).status).toBe(201);
    expect((await dev.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: dry.body.basedOn })).status).toBe(200);
    expect((await entries(v)).get('A')?.rawValue).toBe('a1');

    await create(v, 'New', 'x');
    const withDelete = await dev.post(`${base(v)}/restore`, { at });
    expect(withDelete.body.changes.map((c: any) => c.action)).toEqual(['delete']);
    const refused = await dev.post(`${base(v)}/restore`, { at, dryRun: false, basedOn: withDelete.body.basedOn });
    expect(refused.status).toBe(403);
    expect((await entries(v)).has('New')).toBe(true);
  });
});
