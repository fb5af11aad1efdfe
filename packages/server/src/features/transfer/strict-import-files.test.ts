import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const TYPES = { json: 'application/json', yaml: 'application/yaml', env: 'text/plain' } as const;

describe.each(databaseKinds)('an imported file is read strictly on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `strict ${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    for (const key of ['App:Name', 'App:Mode']) {
      expect(
        (await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue: 'old' }))
          .status,
      ).toBe(201);
    }
  });
  afterAll(() => server?.close());

  const entries = async () => (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body;
  const importUrl = (format: string, dryRun = false) =>
    `/api/configversions/${serviceId}/${versionId}/import?format=${format}&dryRun=${dryRun}`;
  /** Raw bytes, as a file on disk holds them. */
  const postBytes = async (url: string, bytes: Uint8Array, contentType: string) => {
    const res = await fetch(`${server.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': contentType, cookie: admin.sessionCookie ?? '' },
      body: new Uint8Array(bytes),
    });
    return { status: res.status, body: (await res.json()) as { detail: string; errors?: Record<string, string[]> } };
  };

  it.each([
    ['env', Buffer.concat([Buffer.from('App__Name=caf'), Buffer.from([0xe9]), Buffer.from('\n')])],
    ['yaml', Buffer.concat([Buffer.from('App:\n  Name: caf'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')])],
    ['json', Buffer.concat([Buffer.from('{"App":{"Name":"caf'), Buffer.from([0xc3]), Buffer.from('"}}')])],
  ] as const)('refuses a %s file that is not UTF-8 with 400 instead of replacing its bytes', async (format, bytes) => {
    const before = await entries();
    const res = await postBytes(importUrl(format), bytes, TYPES[format]);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/UTF-8/);
    expect(await entries()).toEqual(before);
    // The same text in UTF-8 is imported.
    const good = await postBytes(
      importUrl(format),
      Buffer.from(bytes.toString('latin1').replace(/[\x80-\xff]+/g, 'é')),
      TYPES[format],
    );
    expect(good.status).toBe(200);
  });

  it.each([
    ['!!set', 'App:\n  Name: !!set {a, b}\n'],
    ['!!set under %YAML 1.1', '%YAML 1.1\n---\nApp:\n  Name: !!set {a}\n'],
    ['!!binary', 'App:\n  Name: !!binary aGVsbG8=\n'],
    ['!!timestamp', 'App:\n  Name: !!timestamp 2026-01-01\n'],
    ['!!omap', 'App:\n  Name: !!omap [a: 1]\n'],
    ['a custom tag', 'App:\n  Name: !secret abc\n'],
    ['a verbatim tag', 'App:\n  Name: !<tag:example.com,2026:x> abc\n'],
    ['a key that is a list', 'App:\n  ? [Name, Mode]\n  : x\n'],
  ])('refuses YAML with %s', async (_case, file) => {
    const before = await entries();
    const res = await admin.post(importUrl('yaml'), file, { contentType: TYPES.yaml });
    expect(res.status, res.text).toBe(400);
    expect(await entries()).toEqual(before);
  });

  /** "Billion laughs": nine levels, each nine aliases of the one before (9^9 strings once expanded). */
  const aliasBomb = [
    'App:',
    '  L0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
    ...Array.from({ length: 8 }, (_, i) => `  L${i + 1}: &l${i + 1} [${Array(9).fill(`*l${i}`).join(', ')}]`),
  ].join('\n');
  it.each([
    ['an alias bomb', aliasBomb, /aliases expand past the limit/],
    // Past 16 KiB a file is read in a worker thread: its failure must come back as the same 400.
    ['an alias bomb read in a worker thread', `${aliasBomb}\n# ${'x'.repeat(20_000)}\n`, /aliases expand past/],
    ['an alias inside the node it names', 'App: &app\n  Name: *app\n', /inside the node it names/],
    ['an alias without its anchor', 'App:\n  Name: *nowhere\n', /has no anchor/],
  ])('answers %s with 400 problem details and changes nothing', async (_case, file, detail) => {
    const before = await entries();
    for (const dryRun of [true, false]) {
      const res = await admin.post(importUrl('yaml', dryRun), file, { contentType: TYPES.yaml });
      expect({ dryRun, status: res.status }, res.text).toEqual({ dryRun, status: 400 });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toMatch(detail);
    }
    expect(await entries()).toEqual(before);
  });

  it('takes the core tags YAML files may spell out', async () => {
    const res = await admin.post(importUrl('yaml', true), 'App:\n  Name: !!str 1\n  Mode: !!str yes\n', {
      contentType: TYPES.yaml,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changes.map((c: any) => [c.key, c.next.value])).toEqual([
      ['App:Name', '1'],
      ['App:Mode', 'yes'],
    ]);
  });

  it.each([
    ['a JSON body', 'json', TYPES.json, '{"App":{"Name":"a","Mode":"m","Name":"b"}}', ['App.Name']],
    ['JSON sent as text', 'json', 'text/plain', '{"App":{"Name":"a"},"App":{"Mode":"b"}}', ['App']],
    [
      'an exported flat document',
      'json',
      TYPES.json,
      '{"values":{"App:Name":"a","App:Name":"b"}}',
      ['values.App:Name'],
    ],
    ['an env file', 'env', TYPES.env, 'App__Name=a\nApp__Mode=m\nexport App__Name=b\n', ['App__Name']],
    ['YAML', 'yaml', TYPES.yaml, 'App:\n  Name: a\n  Name: b\n', []],
  ])('refuses a key given twice in %s with 400 naming it', async (_case, format, contentType, file, named) => {
    const before = await entries();
    for (const dryRun of [true, false]) {
      const res = await admin.post(importUrl(format, dryRun), file, { contentType });
      expect({ dryRun, status: res.status }).toEqual({ dryRun, status: 400 });
      if (named.length > 0) {
        expect(Object.keys(res.body.errors)).toEqual(named);
        for (const name of named) expect(res.body.detail).toContain(name);
      }
    }
    expect(await entries()).toEqual(before);
  });

  it('reads a quoted env value holding a line like a definition as one value, not a second definition', async () => {
    const res = await admin.post(importUrl('env', true), 'App__Name="first\nApp__Name=second"\nApp__Mode=m\n', {
      contentType: TYPES.env,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changes.map((c: any) => [c.key, c.next.value])).toEqual([
      ['App:Name', 'first\nApp__Name=second'],
      ['App:Mode', 'm'],
    ]);
  });
});
