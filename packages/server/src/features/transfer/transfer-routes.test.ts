import { parse as parseDotenv } from 'dotenv';
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

/** One entry of every value type, with values a file format could get wrong. */
const SAMPLES: Array<[key: string, valueType: number, rawValue: string | null, enumDefinition?: string]> = [
  ['Text:Equals', 1, 'a=b=c'],
  ['Text:Lines', 1, 'line 1\nline 2\n  indented'],
  ['Text:Quotes', 1, `it's "quoted"`],
  ['Text:Backtick', 1, "back`tick 'single'"],
  ['Text:Unicode', 1, 'Grüße 🚀 — ok'],
  ['Text:Hash', 1, 'not # a comment'],
  ['Text:Empty', 1, ''],
  ['Text:Spaces', 1, '  padded  '],
  ['Text:Null', 1, null],
  ['Unknown:Any', 0, 'anything'],
  ['Flags:On', 2, 'True'],
  ['When:Start', 3, '2026-11-21T12:00:00Z'],
  ['When:Window', 4, '1.02:03:04.5'],
  ['Mode:Current', 5, 'Test', 'Live|Test'],
  ['Numbers:Big', 6, '1e3'],
  ['Numbers:Fraction', 6, '3.50'],
  ['Lists:Retries', 7, '[1, 2,  3]'],
  ['Objects:Limits', 8, '{ "max": 1, "nested": { "a": [true, null] } }'],
];

describe.each(databaseKinds)('compare, export and import on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let labels = 0;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `transfer ${kind}` })).body.id;
  });
  afterAll(() => server?.close());

  const base = (versionId: string) => `/api/configentries/${serviceId}/${versionId}`;
  const versions = (versionId: string) => `/api/configversions/${serviceId}/${versionId}`;
  const entries = async (versionId: string) =>
    new Map(((await admin.get(base(versionId))).body as Entry[]).map((e) => [e.key, e]));
  const version = async (samples = SAMPLES) => {
    const id = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: `v${++labels}` })).body
      .id as string;
    for (const [key, valueType, rawValue, enumDefinition] of samples) {
      const res = await admin.post(base(id), { key, valueType, rawValue, enumDefinition: enumDefinition ?? null });
      expect(res.status, res.text).toBe(201);
    }
    return id;
  };
  const auditCount = async () =>
    (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).body.entities.length as number;

  it('compares two versions: added, removed, value, type and metadata changes, with both sides', async () => {
    const left = await version();
    const right = await version();
    const now = await entries(right);
    const set = (key: string, rawValue: string) =>
      admin.put(`${base(right)}/set`, [{ id: now.get(key)!.id, rawValue, generation: now.get(key)!.generation }]);
    expect((await set('Numbers:Big', '1001')).status).toBe(200);
    expect((await set('Lists:Retries', '[9]')).status).toBe(200);
    const flag = now.get('Flags:On')!;
    expect(
      (await admin.put(`${base(right)}/${flag.id}`, { description: 'switch', generation: flag.generation })).status,
    ).toBe(200);
    expect((await admin.delete(`${base(right)}/${now.get('Text:Hash')!.id}`)).status).toBe(204);
    expect((await admin.delete(`${base(right)}/${now.get('Unknown:Any')!.id}`)).status).toBe(204);
    expect((await admin.post(base(right), { key: 'Unknown:Any', valueType: 6, rawValue: '7' })).status).toBe(201);
    expect((await admin.post(base(right), { key: 'Brand:New', valueType: 1, rawValue: 'x' })).status).toBe(201);

    const res = await admin.get(`/api/configversions/${serviceId}/compare?base=${left}&target=${right}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.differences.map((d: any) => [d.key, d.change])).toEqual([
      ['Brand:New', 'added'],
      ['Flags:On', 'metadataChanged'],
      ['Lists:Retries', 'valueChanged'],
      ['Numbers:Big', 'valueChanged'],
      ['Text:Hash', 'removed'],
      ['Unknown:Any', 'typeChanged'],
    ]);
    const big = res.body.differences.find((d: any) => d.key === 'Numbers:Big');
    expect([big.base.value, big.target.value, big.target.valueTypeName]).toEqual(['1e3', '1001', 'Number']);
    expect(res.body.unchanged).toBe(SAMPLES.length - 5);
    expect(res.body.base).toMatchObject({ serviceId, versionId: left });
  });

  it('compares across services only with canAll, and answers 404 for an unknown version', async () => {
    const left = await version([['A', 1, 'a']]);
    const other = (await admin.post('/api/services', { name: `transfer other ${kind}` })).body.id as string;
    const foreign = (await admin.post(`/api/configversions/${other}`, { versionLabel: '1' })).body.id as string;
    const url = `/api/configversions/${serviceId}/compare?base=${left}&target=${foreign}`;
    expect((await admin.get(url)).status).toBe(200);
    const dev = await server.userWithRole(`comparer-${kind}`, 'developer');
    expect((await dev.get(url)).status).toBe(404);
    expect(
      (
        await admin.get(
          `/api/configversions/${serviceId}/compare?base=${left}&target=00000000-0000-4000-8000-000000000000`,
        )
      ).status,
    ).toBe(404);
    expect((await admin.get(`/api/configversions/${serviceId}/compare?base=${left}`)).status).toBe(400);
  });

  it('writes any one-line value to env as dotenv reads it back, quotes of every kind included', async () => {
    const values: Array<[string, string]> = [
      ['Quotes:All', 'it\'s "all" `three` kinds'],
      ['Quotes:Single', "'single'"],
      ['Quotes:Double', '"double"'],
      ['Quotes:Back', '`back`'],
      ['Text:Hash', 'a # not a comment'],
      ['Text:Spaces', '  padded  '],
      ['Text:Backslash', 'C:\\dir\\n'],
      ['Text:Lines', 'one\ntwo "and" `more`'],
      ['Text:Empty', ''],
      ['Text:TrailingBackslash', 'ends with \\'],
    ];
    const v = await version(values.map(([key, raw]) => [key, 1, raw]));
    const exported = await admin.get(`${versions(v)}/export?format=env`);
    expect(exported.status, exported.text).toBe(200);
    const read = parseDotenv(exported.text);
    for (const [key, raw] of values)
      expect({ key, value: read[key.replaceAll(':', '__')] }).toEqual({ key, value: raw });
    const dry = await admin.post(`${versions(v)}/import?format=env`, exported.text, { contentType: 'text/plain' });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes).toEqual([]);

    // What no quoting keeps is refused by name, saying what is refused.
    const refused = await version([['Text:Impossible', 1, 'it\'s "all"\n`three`']]);
    const answer = await admin.get(`${versions(refused)}/export?format=env`);
    expect(answer.status).toBe(409);
    expect(answer.body.detail).toContain('Text:Impossible');
    expect(answer.body.detail).toMatch(/line break together with ', ` and "/);
  });

  it.each([
    ['json', '', 'application/json'],
    ['json', '&flat=true', 'application/json'],
    ['yaml', '', 'application/yaml'],
    ['env', '', 'text/plain'],
  ])('round-trips a version through %s%s: importing its export changes nothing', async (format, flat, contentType) => {
    const samples =
      format === 'env' ? SAMPLES : [...SAMPLES, ['Text:AllQuotes', 1, '\'"`\nall'] as (typeof SAMPLES)[number]];
    const v = await version(samples);
    const exported = await admin.get(`${versions(v)}/export?format=${format}${flat}`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers.get('content-type')).toContain(contentType);
    expect(exported.headers.get('content-disposition')).toMatch(/attachment; filename=".*\.(json|yaml|env)"/);
    const before = await entries(v);
    const audits = await auditCount();

    const upload = (query: string) =>
      admin.post(`${versions(v)}/import?format=${format}${query}`, exported.text, { contentType });
    const dry = await upload('');
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes).toEqual([]);
    expect(dry.body.unchanged).toBe(samples.filter(([, , raw]) => format !== 'env' || raw !== null).length);
    const applied = await upload(`&dryRun=false&basedOn=${dry.body.basedOn}`);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ applied: true, changes: [] });
    expect(await entries(v)).toEqual(before);
    expect(await auditCount()).toBe(audits);

    // And into an empty version it creates every key with its type and value (json/yaml carry types).
    if (format !== 'env') {
      const empty = await version([]);
      const created = await admin.post(
        `${versions(empty)}/import?format=${format}&createMissing=true&dryRun=false`,
        exported.text,
        { contentType },
      );
      expect(created.status, created.text).toBe(200);
      const copy = await entries(empty);
      for (const [key, valueType, rawValue] of samples) {
        expect({ key, type: copy.get(key)?.valueType }).toEqual({ key, type: valueType });
        const again = await admin.get(`/api/configversions/${serviceId}/compare?base=${v}&target=${empty}`);
        expect(again.body.differences.filter((d: any) => d.change !== 'valueChanged')).toEqual([]);
        if (rawValue !== null && [1, 3, 4, 5].includes(valueType)) expect(copy.get(key)?.rawValue).toBe(rawValue);
      }
    }
  });

  it('imports changed values as one batch: one stream event, audited Imported, 409 on a concurrent change', async () => {
    const v = await version([
      ['App:Name', 1, 'old'],
      ['App:Port', 6, '80'],
    ]);
    const file = JSON.stringify({ App: { Name: 'new', Port: 8080 } });
    const dry = await admin.post(`${versions(v)}/import?format=json`, file);
    expect(dry.body.changes.map((c: any) => [c.key, c.current.value, c.next.value])).toEqual([
      ['App:Name', 'old', 'new'],
      ['App:Port', '80', '8080'],
    ]);
    const grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    const stream = grpc.subscribe({ serviceId, versionId: v });
    try {
      await stream.until((s) => s.events.length === 1);
      const applied = await admin.post(
        `${versions(v)}/import?format=json&dryRun=false&basedOn=${dry.body.basedOn}`,
        file,
      );
      expect(applied.status).toBe(200);
      await stream.until((s) => s.events.length === 2);
      expect(stream.events[1]!.events.map((e) => [e.key, e.value])).toEqual([
        ['App:Name', 'new'],
        ['App:Port', '8080'],
      ]);
    } finally {
      stream.cancel();
      grpc.close();
    }
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Entry', pageSize: 2 });
    expect(audit.body.entities.map((r: any) => r.action)).toEqual(['Imported', 'Imported']);

    const next = JSON.stringify({ App: { Name: 'newer' } });
    const stale = await admin.post(`${versions(v)}/import?format=json`, next);
    const now = await entries(v);
    await admin.put(`${base(v)}/set`, [
      { id: now.get('App:Name')!.id, rawValue: 'concurrent', generation: now.get('App:Name')!.generation },
    ]);
    const refused = await admin.post(
      `${versions(v)}/import?format=json&dryRun=false&basedOn=${stale.body.basedOn}`,
      next,
    );
    expect(refused.status).toBe(409);
    expect((await entries(v)).get('App:Name')?.rawValue).toBe('concurrent');
  });

  it('refuses a bad value or an unknown key with 400 naming the key, and changes nothing', async () => {
    const v = await version([
      ['App:Port', 6, '80'],
      ['App:Mode', 5, 'A', 'A|B'],
      ['App:Text', 1, 'short'],
    ]);
    const before = await entries(v);
    const cases: Array<[string, string, string]> = [
      ['json', JSON.stringify({ App: { Port: 'eighty', Mode: 'B' } }), 'App:Port'],
      // The same number to JavaScript, but not a decimal number the server stores.
      ['env', 'App__Port=0x50\n', 'App:Port'],
      // Longer than a value may be (256 KiB), though the file is within the request size.
      ['json', JSON.stringify({ App: { Text: 'x'.repeat(256 * 1024 + 1) } }), 'App:Text'],
      ['json', JSON.stringify({ App: { Mode: 'C' } }), 'App:Mode'],
      ['json', JSON.stringify({ App: { Missing: 1, Port: 81 } }), 'App:Missing'],
      ['env', 'App__Port=81\nApp__Other=x\n', 'App:Other'],
      ['yaml', 'App:\n  Port: [1, 2]\n', 'App:Port'],
    ];
    // Applying and its dry run alike: a preview never promises a batch that would be refused.
    for (const dryRun of ['false', 'true']) {
      for (const [format, body, key] of cases) {
        const res = await admin.post(`${versions(v)}/import?format=${format}&dryRun=${dryRun}`, body, {
          contentType: format === 'json' ? 'application/json' : format === 'yaml' ? 'application/yaml' : 'text/plain',
        });
        expect({ format, key, dryRun, status: res.status }).toEqual({ format, key, dryRun, status: 400 });
        expect(Object.keys(res.body.errors ?? {})).toContain(key);
      }
    }
    expect(
      (await admin.post(`${versions(v)}/import?format=yaml`, 'a: [unclosed', { contentType: 'application/yaml' }))
        .status,
    ).toBe(400);
    expect(
      (await admin.post(`${versions(v)}/import?format=yaml`, 'a: "\\0"', { contentType: 'application/yaml' })).status,
    ).toBe(400);
    expect(await entries(v)).toEqual(before);
  });

  it('names every key that cannot be imported in one answer: missing keys and values that do not fit', async () => {
    const v = await version([
      ['App:Port', 6, '80'],
      ['App:Mode', 5, 'A', 'A|B'],
    ]);
    const before = await entries(v);
    const res = await admin.post(
      `${versions(v)}/import?format=json`,
      JSON.stringify({ App: { Port: 'eighty', Mode: 'C', Missing: 1 } }),
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['App:Missing', 'App:Mode', 'App:Port']);
    expect(res.body.errors['App:Missing'][0]).toMatch(/not in this version/);
    expect(res.body.errors['App:Missing'][0]).not.toMatch(/createMissing=/);
    expect(res.body.detail).toMatch(/App:Port .*App:Mode|App:Mode .*App:Port/);
    expect(await entries(v)).toEqual(before);
  });

  it('promotes values from another version with a reviewed diff, and refuses a nested export that cannot nest', async () => {
    const from = await version([
      ['Db:Host', 1, 'db.prod'],
      ['Db:Pool', 6, '50'],
      ['Db:Only', 1, 'new here'],
    ]);
    const to = await version([
      ['Db:Host', 1, 'db.test'],
      ['Db:Pool', 6, '5'],
    ]);
    const dry = await admin.post(`${versions(to)}/import`, { fromVersionId: from, keys: ['Db:Host', 'Db:Pool'] });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes.map((c: any) => [c.key, c.next.value])).toEqual([
      ['Db:Host', 'db.prod'],
      ['Db:Pool', '50'],
    ]);
    expect((await admin.post(`${versions(to)}/import`, { fromVersionId: from })).status).toBe(400); // Db:Only is missing
    const all = await admin.post(`${versions(to)}/import?createMissing=true&dryRun=false`, { fromVersionId: from });
    expect(all.status, all.text).toBe(200);
    const now = await entries(to);
    expect([now.get('Db:Host')?.rawValue, now.get('Db:Pool')?.rawValue, now.get('Db:Only')?.rawValue]).toEqual([
      'db.prod',
      '50',
      'new here',
    ]);

    const clash = await version([
      ['A', 1, 'a'],
      ['A:B', 1, 'b'],
    ]);
    expect((await admin.get(`${versions(clash)}/export?format=json`)).status).toBe(409);
    expect((await admin.get(`${versions(clash)}/export?format=json&flat=true`)).status).toBe(200);
  });
});
