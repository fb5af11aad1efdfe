import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, scannableDatabase, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

const STRING = 1;
const NUMBER = 6;

describe.each(databaseKinds)('overrides by label over REST on %s', (kind) => {
  let server: TestServer;
  let database: TestDatabase;
  let bytes: () => Buffer;
  let admin: ApiClient;
  let developer: ApiClient;
  let serviceId: string;
  let versionId: string;
  let base: string;

  beforeAll(async () => {
    const scannable = await scannableDatabase(kind);
    database = scannable.db;
    bytes = scannable.bytes;
    const keyFile = newMasterKeyFile();
    server = await startTestServer({ database, args: [`--Secrets:MasterKeyFile=${keyFile}`] });
    admin = await server.admin();
    developer = await server.userWithRole('override-dev', 'developer');
    serviceId = (await admin.post('/api/services', { name: 'overrides-suite' })).body.id;
    const member = await admin.post(`/api/services/${serviceId}/members`, { userId: 'override-dev', role: 'editor' });
    expect(member.status, member.text).toBeLessThan(300);
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    base = `/api/configentries/${serviceId}/${versionId}`;
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await admin.post(base, body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; generation: number };
  };
  const noticesDuring = (fn: () => Promise<unknown>) => server.noticesDuring(versionId, fn);
  const resolve = async (query: string) => {
    const res = await developer.get(`/api/configversions/${serviceId}/${versionId}/resolve${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.entries as Array<Record<string, unknown>>;
  };

  it('sets overrides as a change of the entry: generation + 1, one event, audited OverridesSet', async () => {
    const entry = await create({ key: 'Timeout', valueType: NUMBER, rawValue: '30', schema: { maximum: 100 } });
    const overrides = [
      { labels: { region: 'eu' }, rawValue: '45' },
      { labels: { tier: 'gold' }, rawValue: '60' },
    ];
    let res: Awaited<ReturnType<ApiClient['put']>> | undefined;
    const notices = await noticesDuring(async () => {
      res = await developer.put(`${base}/${entry.id}/overrides`, { overrides, generation: entry.generation });
    });
    expect(res?.status, res?.text).toBe(200);
    expect(res?.body).toMatchObject({ rawValue: '30', generation: entry.generation + 1, overrides });
    expect(notices).toHaveLength(1);
    expect(notices[0]?.entries).toEqual([
      expect.objectContaining({ key: 'Timeout', value: '30', generation: entry.generation + 1, overrides }),
    ]);
    const listed = (await developer.get(base)).body as Array<{ key: string; overrides: unknown }>;
    expect(listed.find((e) => e.key === 'Timeout')?.overrides).toEqual(overrides);
    const audit = (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).body.entities as any[];
    const record = audit.find((a) => a.action === 'OverridesSet');
    expect(record?.changes).toMatchObject({
      before: { key: 'Timeout', overrides: [], generation: entry.generation },
      after: { key: 'Timeout', overrides, generation: entry.generation + 1 },
    });
  });

  it('answers what an instance with given labels resolves: first match in list order, else the value', async () => {
    const timeout = (entries: Array<Record<string, unknown>>) => entries.find((e) => e.key === 'Timeout');
    expect(timeout(await resolve(''))).toMatchObject({
      rawValue: '30',
      source: 'value',
      overrideIndex: null,
      rolloutId: null,
    });
    expect(timeout(await resolve('?labels=region%3Deu'))).toMatchObject({
      rawValue: '45',
      source: 'override',
      overrideIndex: 0,
    });
    expect(timeout(await resolve('?labels=tier%3Dgold,region%3Deu&instanceId=i-1'))).toMatchObject({
      rawValue: '45',
      overrideIndex: 0,
    });
    expect(timeout(await resolve('?labels=tier%3Dgold,region%3Dus'))).toMatchObject({
      rawValue: '60',
      overrideIndex: 1,
    });
    const bad = await developer.get(`/api/configversions/${serviceId}/${versionId}/resolve?labels=region`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/labels/);
  });

  it('refuses bad overrides with 400 or 409, changing nothing and sending no event', async () => {
    const entry = (await developer.get(base)).body.find((e: { key: string }) => e.key === 'Timeout');
    const put = (body: unknown) => developer.put(`${base}/${entry.id}/overrides`, body);
    const fiftyOne = Array.from({ length: 51 }, (_, i) => ({ labels: { n: String(i) }, rawValue: '1' }));
    const cases: Array<[unknown, number, RegExp]> = [
      [{ overrides: fiftyOne, generation: entry.generation }, 400, /at most 50/],
      [{ overrides: [{ labels: {}, rawValue: '1' }], generation: entry.generation }, 400, /at least one label/],
      [{ overrides: [{ labels: { a: 'b' }, rawValue: 'abc' }], generation: entry.generation }, 400, /Timeout/],
      [{ overrides: [{ labels: { a: 'b' }, rawValue: '500' }], generation: entry.generation }, 400, /override 1/],
      [{ overrides: [], generation: entry.generation - 1 }, 409, /Generation mismatch/],
    ];
    for (const [body, status, detail] of cases) {
      let res: Awaited<ReturnType<ApiClient['put']>> | undefined;
      const notices = await noticesDuring(async () => {
        res = await put(body);
      });
      expect(res?.status, res?.text).toBe(status);
      expect(res?.text).toMatch(detail);
      expect(notices).toEqual([]);
    }
    const schemaRefusal = await put({
      overrides: [{ labels: { a: 'b' }, rawValue: '500' }],
      generation: entry.generation,
    });
    expect(schemaRefusal.body.violations).toEqual([
      expect.objectContaining({ key: 'Timeout', keyword: 'maximum', message: expect.stringMatching(/^override 1/) }),
    ]);
    const after = (await developer.get(base)).body.find((e: { key: string }) => e.key === 'Timeout');
    expect(after).toEqual(entry);
  });

  it("keeps a secret entry's overrides sealed at rest and redacted in every answer, audit and event record", async () => {
    const plain = `override-plaintext-${Date.now()}`;
    const secret = await create({ key: 'Api:Key', valueType: STRING, rawValue: 'the-value', isSecret: true });
    const res = await developer.put(`${base}/${secret.id}/overrides`, {
      overrides: [{ labels: { region: 'eu' }, rawValue: plain }],
      generation: secret.generation,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.overrides).toEqual([
      { labels: { region: 'eu' }, rawValue: null, redacted: true, fingerprint: expect.stringMatching(/^[0-9a-f]+$/) },
    ]);
    const answers = [
      res.text,
      (await developer.get(base)).text,
      (await developer.get(`/api/configversions/${serviceId}/${versionId}/resolve?labels=region%3Deu`)).text,
      (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).text,
      (await developer.get(`${base}/${secret.id}/history`)).text,
    ];
    for (const answer of answers) expect(answer).not.toContain(plain);
    const resolved = (await resolve('?labels=region%3Deu')).find((e) => e.key === 'Api:Key');
    expect(resolved).toMatchObject({ source: 'override', rawValue: null, redacted: true });
    expect(bytes().includes(Buffer.from(plain))).toBe(false);
  });

  it('carries overrides through an export and an import, into a new version and back onto an entry', async () => {
    const exported = await admin.get(`/api/configversions/${serviceId}/${versionId}/export?format=json`);
    expect(exported.status, exported.text).toBe(200);
    const file = JSON.parse(exported.text);
    expect(file.entries.Timeout.overrides).toEqual([
      { labels: { region: 'eu' }, rawValue: '45' },
      { labels: { tier: 'gold' }, rawValue: '60' },
    ]);
    const copy = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0' })).body.id;
    const imported = await admin.post(
      `/api/configversions/${serviceId}/${copy}/import?format=json&createMissing=true&dryRun=false`,
      file,
    );
    expect(imported.status, imported.text).toBe(200);
    const copied = (await admin.get(`/api/configentries/${serviceId}/${copy}`)).body.find(
      (e: { key: string }) => e.key === 'Timeout',
    );
    expect(copied.overrides).toEqual(file.entries.Timeout.overrides);

    // Onto an existing entry: the file's overrides replace the entry's, in one change of it.
    file.entries.Timeout.overrides = [{ labels: { region: 'us' }, rawValue: '20' }];
    const again = await admin.post(`/api/configversions/${serviceId}/${copy}/import?format=json&dryRun=false`, file);
    expect(again.status, again.text).toBe(200);
    const updated = (await admin.get(`/api/configentries/${serviceId}/${copy}`)).body.find(
      (e: { key: string }) => e.key === 'Timeout',
    );
    expect(updated).toMatchObject({ overrides: file.entries.Timeout.overrides, generation: copied.generation + 1 });

    // A dry run marks an override whose value breaks the entry's schema, as it marks a value.
    file.entries.Timeout.overrides = [{ labels: { region: 'us' }, rawValue: '500' }];
    const dry = await admin.post(`/api/configversions/${serviceId}/${copy}/import?format=json`, file);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes.find((c: { key: string }) => c.key === 'Timeout').violations).toEqual([
      expect.objectContaining({ keyword: 'maximum', message: expect.stringMatching(/^override 1: /) }),
    ]);

    // An override that does not fit the entry refuses the import and changes nothing.
    file.entries.Timeout.overrides = [{ labels: { region: 'us' }, rawValue: 'not a number' }];
    const refused = await admin.post(`/api/configversions/${serviceId}/${copy}/import?format=json&dryRun=false`, file);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toContain('Timeout');
    const unchanged = (await admin.get(`/api/configentries/${serviceId}/${copy}`)).body.find(
      (e: { key: string }) => e.key === 'Timeout',
    );
    expect(unchanged).toEqual(updated);

    // A copy from another version brings the overrides with the value; then the two compare equal.
    const differing = await admin.get(`/api/configversions/${serviceId}/compare?base=${versionId}&target=${copy}`);
    expect(differing.body.differences.find((d: { key: string }) => d.key === 'Timeout')).toMatchObject({
      change: 'valueChanged',
      overridesChanged: true,
    });
    const promoted = await admin.post(`/api/configversions/${serviceId}/${copy}/import?dryRun=false`, {
      fromVersionId: versionId,
      keys: ['Timeout'],
    });
    expect(promoted.status, promoted.text).toBe(200);
    const compared = await admin.get(`/api/configversions/${serviceId}/compare?base=${versionId}&target=${copy}`);
    expect(compared.body.differences.map((d: { key: string }) => d.key)).not.toContain('Timeout');
  });

  it("shows overrides in an entry's history and restores them with the value", async () => {
    const entry = (await developer.get(base)).body.find((e: { key: string }) => e.key === 'Timeout');
    const history = (await developer.get(`${base}/${entry.id}/history`)).body.entities as any[];
    const set = history.find((h) => h.action === 'OverridesSet');
    expect(set).toMatchObject({ value: '30', overrides: entry.overrides });
    const created = history.find((h) => h.action === 'Created');
    expect(created.overrides).toEqual([]);
    // Back to the moment before the overrides were set.
    const at = new Date(Math.floor(set.timestampMicros / 1000) - 1).toISOString();
    const restore = (body: object) => admin.post(`${base}/restore`, { at, keys: ['Timeout'], ...body });
    const dry = await restore({});
    expect(dry.status, dry.text).toBe(200);
    const applied = await restore({ dryRun: false, basedOn: dry.body.basedOn });
    expect(applied.status, applied.text).toBe(200);
    const restored = (await developer.get(base)).body.find((e: { key: string }) => e.key === 'Timeout');
    expect(restored).toMatchObject({ rawValue: '30', overrides: [], generation: entry.generation + 1 });
  });

  it('seals the overrides of an entry that turns secret, with every earlier copy of them', async () => {
    const plain = `turned-secret-${Date.now()}`;
    const entry = await create({ key: 'Db:Password', valueType: STRING, rawValue: 'x' });
    const set = await developer.put(`${base}/${entry.id}/overrides`, {
      overrides: [{ labels: { region: 'eu' }, rawValue: plain }],
      generation: entry.generation,
    });
    expect(set.status, set.text).toBe(200);
    const secret = await admin.put(`${base}/${entry.id}`, { isSecret: true, generation: set.body.generation });
    expect(secret.status, secret.text).toBe(200);
    expect(secret.body.overrides).toEqual([
      { labels: { region: 'eu' }, rawValue: null, redacted: true, fingerprint: expect.any(String) },
    ]);
    // What SQLite's write-ahead log still holds reaches the database file (secure_delete zeroes the rest).
    if (kind === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(server.internals.database.db);
    expect(bytes().includes(Buffer.from(plain))).toBe(false);
    expect((await developer.get(`${base}/${entry.id}/history`)).text).not.toContain(plain);
  });
});
