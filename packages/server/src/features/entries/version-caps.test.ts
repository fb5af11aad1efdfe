import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeNotice } from '../../core/index.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import {
  startTestServer,
  type ApiClient,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

const MAX_ENTRIES = 3;
const MAX_BYTES = 1024;
const CAPS = [`--Versions:MaxEntries=${MAX_ENTRIES}`, `--Versions:MaxBytes=${MAX_BYTES}`];

/** What an entry created as `{ key, name: 'n', rawValue }` adds to its version: UTF-8 bytes of its texts. */
const sizeOf = (key: string, rawValue: string) => Buffer.byteLength(key) + 1 + Buffer.byteLength(rawValue);

describe.each(databaseKinds)('version caps over REST on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let labels = 0;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: CAPS });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `caps ${kind}` })).body.id;
  });
  afterAll(() => server?.close());

  const newVersion = async () => {
    const label = `v${++labels}`;
    const id = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label })).body.id as string;
    return { id, label };
  };
  const base = (versionId: string) => `/api/configentries/${serviceId}/${versionId}`;
  const imports = (versionId: string, query: string) =>
    `/api/configversions/${serviceId}/${versionId}/import?format=json&createMissing=true${query}`;
  const create = async (versionId: string, key: string, rawValue: string) => {
    const res = await admin.post(base(versionId), { key, name: 'n', rawValue, valueType: 1 });
    expect(res.status, res.text).toBe(201);
    return res.body as Entry;
  };
  const entries = async (versionId: string) => (await admin.get(base(versionId))).body as Entry[];
  const byKey = async (versionId: string) => new Map((await entries(versionId)).map((e) => [e.key, e]));
  const state = async (versionId: string) => ({
    entries: await entries(versionId),
    newestAudit: (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 1 })).body.entities[0]?.id,
  });

  /** The call answers 400 with `detail`, and stores, audits and announces nothing. */
  const refusedWithoutTrace = async (versionId: string, detail: string, call: () => Promise<ApiResponse<any>>) => {
    await server.flushChanges();
    const before = await state(versionId);
    const notices: ChangeNotice[] = [];
    const stop = server.internals.hub.subscribeAll((notice) => notices.push(notice));
    try {
      const res = await call();
      expect(res.status, res.text).toBe(400);
      expect(res.body.detail).toBe(detail);
      await server.flushChanges();
    } finally {
      stop();
    }
    expect(notices.filter((n) => n.serviceId === serviceId)).toEqual([]);
    expect(await state(versionId)).toEqual(before);
  };
  const tooManyEntries = (label: string, n: number) =>
    `Version ${label} would hold ${n} entries; the limit is ${MAX_ENTRIES} (Versions:MaxEntries).`;
  const tooManyBytes = (label: string) =>
    `Version ${label} would grow past its limit of 1,024 bytes (Versions:MaxBytes).`;

  it('creates entries up to the entry cap and refuses the next one', async () => {
    const v = await newVersion();
    for (const key of ['A', 'B', 'C']) await create(v.id, key, 'x');
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () =>
      admin.post(base(v.id), { key: 'D', name: 'n', rawValue: 'x', valueType: 1 }),
    );
    // Deleting makes room again.
    expect((await admin.delete(`${base(v.id)}/${(await byKey(v.id)).get('A')!.id}`)).status).toBe(204);
    await create(v.id, 'D', 'x');
  });

  it('counts UTF-8 bytes: an entry filling the version to the byte is accepted, one byte more is refused', async () => {
    const v = await newVersion();
    const full = `${'é'.repeat(510)}x`; // 511 characters, 1,021 bytes
    expect(sizeOf('K1', full)).toBe(MAX_BYTES);
    await create(v.id, 'K1', full);
    await refusedWithoutTrace(v.id, tooManyBytes(v.label), () =>
      admin.post(base(v.id), { key: 'K', name: 'n', rawValue: '', valueType: 1 }),
    );
  });

  it('sets values up to the byte cap: a batch that grows past it is refused, one that shrinks as much is not', async () => {
    const v = await newVersion();
    const a = await create(v.id, 'A', 'a');
    const b = await create(v.id, 'B', 'b');
    const fill = 'y'.repeat(MAX_BYTES - sizeOf('A', '') - sizeOf('B', 'b'));
    const set = await admin.put(`${base(v.id)}/set`, [{ id: a.id, rawValue: fill, generation: a.generation }]);
    expect(set.status, set.text).toBe(200);
    const a2 = set.body[0] as Entry;
    await refusedWithoutTrace(v.id, tooManyBytes(v.label), () =>
      admin.put(`${base(v.id)}/set`, [{ id: b.id, rawValue: 'bb', generation: b.generation }]),
    );
    // The same growth, paid for by another value of the batch: the version stays at its cap.
    const both = await admin.put(`${base(v.id)}/set`, [
      { id: a2.id, rawValue: fill.slice(1), generation: a2.generation },
      { id: b.id, rawValue: 'bb', generation: b.generation },
    ]);
    expect(both.status, both.text).toBe(200);
  });

  it('updates metadata (description, default value) up to the byte cap and always allows shrinking', async () => {
    const v = await newVersion();
    const a = await create(v.id, 'A', 'a');
    const description = 'd'.repeat(MAX_BYTES - sizeOf('A', 'a'));
    const updated = await admin.put(`${base(v.id)}/${a.id}`, { description, generation: a.generation });
    expect(updated.status, updated.text).toBe(200);
    const a2 = updated.body as Entry;
    await refusedWithoutTrace(v.id, tooManyBytes(v.label), () =>
      admin.put(`${base(v.id)}/${a.id}`, { rawValue: 'ab', generation: a2.generation }),
    );
    const shrunk = await admin.put(`${base(v.id)}/${a.id}`, { rawValue: '', generation: a2.generation });
    expect(shrunk.status, shrunk.text).toBe(200);
  });

  it('imports and promotes up to the caps; a plan that would pass them is refused in its dry run and when applied', async () => {
    const v = await newVersion();
    await create(v.id, 'A', 'a');
    const file = { values: { A: 'a', B: 'b', C: 'c' } };
    const dry = await admin.post(imports(v.id, ''), file);
    expect(dry.status, dry.text).toBe(200);
    const applied = await admin.post(imports(v.id, `&dryRun=false&basedOn=${dry.body.basedOn}`), file);
    expect(applied.status, applied.text).toBe(200);
    expect([...(await byKey(v.id)).keys()]).toEqual(['A', 'B', 'C']);

    const more = { values: { D: 'd' } };
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () => admin.post(imports(v.id, ''), more));
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () => admin.post(imports(v.id, '&dryRun=false'), more));
    const big = { values: { C: 'c'.repeat(MAX_BYTES) } };
    await refusedWithoutTrace(v.id, tooManyBytes(v.label), () => admin.post(imports(v.id, '&dryRun=false'), big));

    // Promoting every key of another version into this one: four keys would be one too many.
    const other = await newVersion();
    await create(other.id, 'E', 'e');
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () =>
      admin.post(imports(v.id, '&dryRun=false'), { fromVersionId: other.id }),
    );
  });

  it('restores up to the caps, checked again when applied: a key brought back into a full version is refused', async () => {
    const v = await newVersion();
    for (const key of ['A', 'B']) await create(v.id, key, 'x');
    const c = await create(v.id, 'C', 'x');
    const at = (await admin.get(`${base(v.id)}/${c.id}/history?pageSize=1`)).body.entities[0].timestamp as string;
    expect((await admin.delete(`${base(v.id)}/${c.id}`)).status).toBe(204);
    const restore = (body: Record<string, unknown>) => admin.post(`${base(v.id)}/restore`, { at, ...body });
    const dry = await restore({ keys: ['C'] });
    expect(dry.status, dry.text).toBe(200);
    // Another key fills the version after the dry run: C is as the dry run saw it, but no longer fits.
    await create(v.id, 'D', 'x');
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () =>
      restore({ keys: ['C'], dryRun: false, basedOn: dry.body.basedOn }),
    );
    await refusedWithoutTrace(v.id, tooManyEntries(v.label, 4), () => restore({ keys: ['C'] }));
    // The whole version as it was: C back, D gone, still three entries.
    const whole = await restore({});
    expect(whole.status, whole.text).toBe(200);
    expect((await restore({ dryRun: false, basedOn: whole.body.basedOn })).status).toBe(200);
    expect([...(await byKey(v.id)).keys()]).toEqual(['A', 'B', 'C']);
  });
  it('keeps the size counters equal to the live entries through every kind of write', async () => {
    const v = await newVersion();
    const a = await create(v.id, 'A', 'aé');
    const b = await create(v.id, 'B', 'b');
    const c = await create(v.id, 'C', 'c');
    const at = (await admin.get(`${base(v.id)}/${c.id}/history?pageSize=1`)).body.entities[0].timestamp as string;
    const set = await admin.put(`${base(v.id)}/set`, [{ id: a.id, rawValue: '🚀🚀', generation: a.generation }]);
    expect(set.status).toBe(200);
    expect((await admin.put(`${base(v.id)}/${b.id}`, { groupName: 'Ü', generation: b.generation })).status).toBe(200);
    expect((await admin.delete(`${base(v.id)}/${c.id}`)).status).toBe(204);
    await create(v.id, 'C', 'again'); // replaces the tombstone
    const restored = await admin.post(`${base(v.id)}/restore`, { at, keys: ['A'] });
    expect(
      (await admin.post(`${base(v.id)}/restore`, { at, keys: ['A'], dryRun: false, basedOn: restored.body.basedOn }))
        .status,
    ).toBe(200);
    expect((await admin.delete(`${base(v.id)}/${(await byKey(v.id)).get('C')!.id}`)).status).toBe(204);
    expect((await admin.post(imports(v.id, '&dryRun=false'), { values: { C: 'ç', B: 'bb' } })).status).toBe(200);

    const live = (await admin.get(base(v.id))).body as Array<Record<string, string | null>>;
    const texts = ['key', 'rawValue', 'name', 'description', 'groupName', 'groupDescription', 'enumDefinition'];
    const bytes = live.reduce((n, e) => n + texts.reduce((m, t) => m + Buffer.byteLength(e[t] ?? ''), 0), 0);
    expect(await server.internals.uow.read.versions.size(v.id)).toEqual({ versionLabel: v.label, entries: 3, bytes });
  });
});

describe.each(databaseKinds)('a version over caps lowered after it was filled, on %s', (kind) => {
  let database: TestDatabase;
  let folder: string | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') database = await createTestDatabase('postgres');
    else {
      // One database file for two servers one after the other.
      const dir = mkdtempSync(path.join(tmpdir(), 'rc-caps-'));
      folder = dir;
      database = { name: 'sqlite', args: [`--Database:DataDir=${dir}`], drop: () => Promise.resolve() };
    }
  });
  afterAll(async () => {
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('still deletes and shrinks, and refuses only growth', async () => {
    const roomy = await startTestServer({ database, args: ['--Versions:MaxEntries=5'] });
    let serviceId = '';
    let versionId = '';
    try {
      const admin = await roomy.admin();
      serviceId = (await admin.post('/api/services', { name: 'lowered' })).body.id;
      versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
      for (const key of ['A', 'B', 'C', 'D', 'E']) {
        const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
          key,
          rawValue: 'xx',
          valueType: 1,
        });
        expect(res.status, res.text).toBe(201);
      }
    } finally {
      await roomy.close();
    }

    const strict = await startTestServer({ database, args: CAPS });
    try {
      const admin = await strict.admin();
      const base = `/api/configentries/${serviceId}/${versionId}`;
      const list = async () => new Map(((await admin.get(base)).body as Entry[]).map((e) => [e.key, e]));
      let now = await list();
      const grow = await admin.post(base, { key: 'F', rawValue: 'x', valueType: 1 });
      expect(grow.status).toBe(400);
      expect(grow.body.detail).toBe('Version 1.0 would hold 6 entries; the limit is 3 (Versions:MaxEntries).');
      const a = now.get('A')!;
      // Shrinking a value of a version over its entry cap: the entry count does not grow.
      const shrink = await admin.put(`${base}/set`, [{ id: a.id, rawValue: 'x', generation: a.generation }]);
      expect(shrink.status, shrink.text).toBe(200);
      expect((await admin.delete(`${base}/${now.get('B')!.id}`)).status).toBe(204);
      expect((await admin.delete(`${base}/${now.get('C')!.id}`)).status).toBe(204);
      now = await list();
      expect([...now.keys()]).toEqual(['A', 'D', 'E']);
      expect((await admin.post(base, { key: 'F', rawValue: 'x', valueType: 1 })).status).toBe(400);
    } finally {
      await strict.close();
    }
  });
});
