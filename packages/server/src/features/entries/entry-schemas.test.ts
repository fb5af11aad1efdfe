import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedCleanly, type WatchedService } from '@realtime-config/test-support/refusal-checks';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
  schema: Record<string, unknown> | null;
  [field: string]: unknown;
}

/**
 * An entry's schema (docs/validation.md) on the entry routes: set on create and by the metadata
 * update, answered on every entry, and no value written that breaks it: create, batch set and
 * metadata update are refused whole, with every broken rule in `violations`, leaving nothing behind.
 */
describe.each(databaseKinds)('entry schemas on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: WebhookReceiver;
  let watched: WatchedService;
  let serviceId: string;
  let versionId: string;
  let base: string;

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: ['--Webhooks:AllowPrivateNetworks=true', `--Secrets:MasterKeyFile=${keyFile}`],
    });
    admin = await server.admin();
    receiver = await startWebhookReceiver();
    serviceId = (await admin.post('/api/services', { name: `schemas-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    base = `/api/configentries/${serviceId}/${versionId}`;
    const webhook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: receiver.url });
    watched = { serviceId, webhookId: webhook.body.id };
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  const create = async (body: Record<string, unknown>): Promise<Entry> => {
    const res = await admin.post(base, body);
    expect(res.status, res.text).toBe(201);
    return res.body as Entry;
  };
  const refused = (write: () => ReturnType<ApiClient['post']>) =>
    expectRefusedCleanly(server, admin, watched, [versionId], write);

  it('stores a schema on create, answers it on every entry (null when none) and removes it with null', async () => {
    const timeout = await create({ key: 'Http:Timeout', valueType: 6, rawValue: '30', schema: { maximum: 300 } });
    expect(timeout.schema).toEqual({ maximum: 300 });
    const plain = await create({ key: 'Http:Plain', valueType: 1, rawValue: 'x' });
    expect(plain.schema).toBeNull();
    const listed = (await admin.get(base)).body as Entry[];
    expect(listed.find((e) => e.key === 'Http:Timeout')?.schema).toEqual({ maximum: 300 });

    const removed = await admin.put(`${base}/${timeout.id}`, { schema: null, generation: timeout.generation });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.schema).toBeNull();
    const back = await admin.put(`${base}/${timeout.id}`, {
      schema: { minimum: 1, maximum: 300 },
      generation: removed.body.generation,
    });
    expect(back.body.schema).toEqual({ minimum: 1, maximum: 300 });
  });

  it('refuses a schema that is not a valid 2020-12 schema, refers outside itself, or passes 64 KiB', async () => {
    for (const schema of [
      { type: 'nonsense' },
      { minimum: 'one' },
      { $ref: 'https://example.com/schema.json' },
      { pattern: '(' },
      { description: 'x'.repeat(65 * 1024) },
      [1, 2],
    ]) {
      const res = await admin.post(base, { key: 'Bad:Schema', valueType: 1, rawValue: 'x', schema });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.schema, res.text).toBeDefined();
    }
    expect(((await admin.get(base)).body as Entry[]).some((e) => e.key === 'Bad:Schema')).toBe(false);
    // A reference inside itself is a schema like any other.
    await create({
      key: 'Good:Ref',
      valueType: 8,
      rawValue: '{"a":1}',
      schema: { $defs: { n: { type: 'integer' } }, properties: { a: { $ref: '#/$defs/n' } } },
    });
  });

  it('refuses a create whose value breaks its schema, naming the rule', async () => {
    const res = await refused(() =>
      admin.post(base, { key: 'Api:Url', valueType: 1, rawValue: 'http://x', schema: { pattern: '^https://' } }),
    );
    expect(res.body.violations).toEqual([
      {
        key: 'Api:Url',
        entryId: null,
        instancePath: '',
        keyword: 'pattern',
        message: 'must match pattern "^https://"',
      },
    ]);
    expect(res.body.detail).toContain('Api:Url');
  });

  it('refuses a whole batch when any value breaks its schema, with every violation', async () => {
    const a = await create({ key: 'Batch:A', valueType: 6, rawValue: '1', schema: { maximum: 10, multipleOf: 1 } });
    const b = await create({ key: 'Batch:B', valueType: 8, rawValue: '{"port":80}', schema: portSchema });
    const c = await create({ key: 'Batch:C', valueType: 1, rawValue: 'ok' });
    const res = await refused(() =>
      admin.put(`${base}/set`, [
        { id: c.id, rawValue: 'fine', generation: c.generation },
        { id: a.id, rawValue: '10.5', generation: a.generation },
        { id: b.id, rawValue: '{"port":"80","extra":true}', generation: b.generation },
      ]),
    );
    const byRule = res.body.violations.map((v) => [v.key, v.entryId, v.instancePath, v.keyword]);
    expect(byRule).toEqual(
      expect.arrayContaining([
        ['Batch:A', a.id, '', 'maximum'],
        ['Batch:A', a.id, '', 'multipleOf'],
        ['Batch:B', b.id, '/port', 'type'],
        ['Batch:B', b.id, '', 'additionalProperties'],
      ]),
    );
    expect(res.body.violations).toHaveLength(4);
    // Null means "use the default": it meets every schema.
    const ok = await admin.put(`${base}/set`, [{ id: a.id, rawValue: null, generation: a.generation }]);
    expect(ok.status, ok.text).toBe(200);
  });

  it('reports at most 100 violations', async () => {
    const list = await create({
      key: 'Many:Items',
      valueType: 7,
      rawValue: '[]',
      schema: { items: { type: 'string' } },
    });
    const res = await refused(() =>
      admin.put(`${base}/set`, [{ id: list.id, rawValue: JSON.stringify([...Array(150).keys()]), generation: 1 }]),
    );
    expect(res.body.violations).toHaveLength(100);
  });

  it('refuses a metadata update whose new schema the current value breaks, and one whose value breaks it', async () => {
    const e = await create({ key: 'Meta:Limit', valueType: 6, rawValue: '500' });
    const tighter = await refused(() => admin.put(`${base}/${e.id}`, { schema: { maximum: 300 }, generation: 1 }));
    expect(tighter.body.violations[0]).toMatchObject({ key: 'Meta:Limit', entryId: e.id, keyword: 'maximum' });
    // The value and the schema changed together: checked together.
    const both = await admin.put(`${base}/${e.id}`, { rawValue: '200', schema: { maximum: 300 }, generation: 1 });
    expect(both.status, both.text).toBe(200);
    await refused(() => admin.put(`${base}/${e.id}`, { rawValue: '301', generation: 2 }));
  });

  it('checks every value type as JSON: booleans, arrays, texts of dates', async () => {
    const flag = await create({ key: 'Types:Flag', valueType: 2, rawValue: 'True', schema: { const: true } });
    await refused(() => admin.put(`${base}/set`, [{ id: flag.id, rawValue: 'false', generation: flag.generation }]));
    const when = await create({
      key: 'Types:When',
      valueType: 3,
      rawValue: '2026-01-01T00:00:00Z',
      schema: { format: 'date-time' },
    });
    expect(when.schema).toEqual({ format: 'date-time' });
    const hosts = await create({ key: 'Types:Hosts', valueType: 7, rawValue: '["a"]', schema: { maxItems: 1 } });
    await refused(() => admin.put(`${base}/set`, [{ id: hosts.id, rawValue: '["a","b"]', generation: 1 }]));
  });

  it("lets only canReveal users change a secret's schema without sending its value", async () => {
    const secret = await create({ key: 'Secret:Pin', valueType: 6, rawValue: '1234', isSecret: true });
    await server.userWithRole(`owner-${kind}`, 'developer');
    await admin.post(`/api/services/${serviceId}/members`, { userId: `owner-${kind}`, role: 'owner' });
    const owner = await server.client().login(`owner-${kind}`, `owner-${kind}-password-for-tests`);
    const probe = await owner.put(`${base}/${secret.id}`, { schema: { maximum: 2000 }, generation: 1 });
    expect(probe.status, probe.text).toBe(403);
    // With a value of their own, nothing is learnt: allowed, and checked against that value.
    const withValue = await owner.put(`${base}/${secret.id}`, {
      rawValue: '1500',
      schema: { maximum: 2000 },
      generation: 1,
    });
    expect(withValue.status, withValue.text).toBe(200);
    const tighter = await admin.put(`${base}/${secret.id}`, { schema: { maximum: 1000 }, generation: 2 });
    expect(tighter.status).toBe(400);

    // Nor does a dry run tell them whether a stored secret value meets its schema.
    const restore = { at: new Date(Date.now() + 60_000).toISOString(), keys: ['Secret:Pin'] };
    const denied = await owner.post(`${base}/restore`, restore);
    expect(denied.status, denied.text).toBe(403);
    expect((await admin.post(`${base}/restore`, restore)).status).toBe(200);
  });

  it("never echoes a secret's value in its violations", async () => {
    const secret = await create({
      key: 'Secret:Creds',
      valueType: 8,
      rawValue: '{"user":"ops"}',
      isSecret: true,
      schema: {
        properties: { user: { type: 'string', maxLength: 5 } },
        additionalProperties: { type: 'number' },
        propertyNames: { pattern: '^[a-z]+$' },
      },
    });
    const value = JSON.stringify({ user: 'hunter2-long', Hunter2Pass: 'hunter2-value' });
    const res = await refused(() =>
      admin.put(`${base}/set`, [{ id: secret.id, rawValue: value, generation: secret.generation }]),
    );
    expect(res.text).not.toMatch(/hunter2/i);
    expect(res.body.violations.map((v) => v.instancePath)).toEqual(expect.arrayContaining(['/user', '/*']));
  });
});

const portSchema = {
  type: 'object',
  properties: { port: { type: 'integer', minimum: 1, maximum: 65535 } },
  additionalProperties: false,
};
