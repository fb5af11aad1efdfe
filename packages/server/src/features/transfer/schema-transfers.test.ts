import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedCleanly, type WatchedService } from '@realtime-config/test-support/refusal-checks';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
  schema: Record<string, unknown> | null;
}

interface PlanItem {
  key: string;
  action: string;
  violations: Array<{ key: string; keyword: string; instancePath: string }>;
}

const LIMIT = { type: 'integer', minimum: 1, maximum: 300 };

/**
 * Schemas travel with their entries (export, import, promotion, restore, a version copied) and
 * every one of those writes checks its values: a dry run marks each row that breaks its schema,
 * and applying refuses the whole plan, leaving nothing behind.
 */
describe.each(databaseKinds)('schemas in exports, imports, promotions and restores on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: WebhookReceiver;
  let watched: WatchedService;
  let serviceId: string;
  let source: string;
  let target: string;

  const entriesOf = async (versionId: string) =>
    (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Entry[];
  const byKey = async (versionId: string, key: string) => (await entriesOf(versionId)).find((e) => e.key === key)!;
  const importUrl = (versionId: string, query: string) =>
    `/api/configversions/${serviceId}/${versionId}/import?${query}`;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    receiver = await startWebhookReceiver();
    serviceId = (await admin.post('/api/services', { name: `schema-transfers-${kind}` })).body.id;
    source = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'source' })).body.id;
    target = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'target' })).body.id;
    for (const versionId of [source, target]) {
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Pool:Size',
        valueType: 6,
        rawValue: '10',
        schema: LIMIT,
      });
      expect(created.status, created.text).toBe(201);
    }
    // No schema in the source: a value the target's schema refuses.
    await admin.post(`/api/configentries/${serviceId}/${source}`, { key: 'Pool:Idle', valueType: 6, rawValue: '900' });
    await admin.post(`/api/configentries/${serviceId}/${target}`, {
      key: 'Pool:Idle',
      valueType: 6,
      rawValue: '30',
      schema: LIMIT,
    });
    const webhook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: receiver.url });
    watched = { serviceId, webhookId: webhook.body.id };
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  it('exports schemas and imports them with the keys an import creates', async () => {
    const exported = await admin.get(`/api/configversions/${serviceId}/${source}/export?format=json`);
    expect(JSON.parse(exported.text).entries['Pool:Size'].schema).toEqual(LIMIT);
    const fresh = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'fresh' })).body.id as string;
    const applied = await admin.post(importUrl(fresh, 'format=json&createMissing=true&dryRun=false'), exported.text, {
      contentType: 'application/json',
    });
    expect(applied.status, applied.text).toBe(200);
    expect((await byKey(fresh, 'Pool:Size')).schema).toEqual(LIMIT);
    expect((await byKey(fresh, 'Pool:Idle')).schema).toBeNull();
  });

  it('refuses an import file that gives a created key an invalid schema, naming the key', async () => {
    const file = {
      values: { New: { Key: 'x' } },
      entries: { 'New:Key': { type: 'String', schema: { type: 'nope' } } },
    };
    const res = await admin.post(importUrl(target, 'format=json&createMissing=true'), file);
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors['New:Key'][0]).toMatch(/schema/);
  });

  it('marks the rows of an import dry run that break their schemas, and refuses to apply it', async () => {
    const file = 'Pool__Size=500\nPool__Idle=20\n';
    const dry = await admin.post(importUrl(target, 'format=env'), file, { contentType: 'text/plain' });
    expect(dry.status, dry.text).toBe(200);
    const rows = dry.body.changes as PlanItem[];
    expect(rows.find((r) => r.key === 'Pool:Size')?.violations).toEqual([
      expect.objectContaining({ key: 'Pool:Size', keyword: 'maximum', instancePath: '' }),
    ]);
    expect(rows.find((r) => r.key === 'Pool:Idle')?.violations).toEqual([]);
    const res = await expectRefusedCleanly(server, admin, watched, [target], () =>
      admin.post(importUrl(target, `format=env&dryRun=false&basedOn=${encodeURIComponent(dry.body.basedOn)}`), file, {
        contentType: 'text/plain',
      }),
    );
    expect(res.body.violations.map((v) => v.key)).toEqual(['Pool:Size']);
  });

  it("checks a promotion's values against the target's schemas", async () => {
    const body = { fromVersionId: source, keys: ['Pool:Idle'] };
    const dry = await admin.post(importUrl(target, 'dryRun=true'), body);
    expect(dry.status, dry.text).toBe(200);
    expect((dry.body.changes as PlanItem[])[0]?.violations[0]).toMatchObject({ key: 'Pool:Idle', keyword: 'maximum' });
    await expectRefusedCleanly(server, admin, watched, [target], () =>
      admin.post(importUrl(target, `dryRun=false&basedOn=${encodeURIComponent(dry.body.basedOn)}`), body),
    );
  });

  it('promotes the schema with a key the promotion creates', async () => {
    const other = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'other' })).body.id as string;
    const res = await admin.post(importUrl(other, 'dryRun=false&createMissing=true'), {
      fromVersionId: source,
      keys: ['Pool:Size'],
    });
    expect(res.status, res.text).toBe(200);
    expect((await byKey(other, 'Pool:Size')).schema).toEqual(LIMIT);
  });

  it("checks a restore's values against today's schemas, and restores a deleted entry with its schema", async () => {
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'restored' })).body
      .id as string;
    const base = `/api/configentries/${serviceId}/${versionId}`;
    const limit = (await admin.post(base, { key: 'Limit', valueType: 6, rawValue: '900' })).body as Entry;
    const kept = (await admin.post(base, { key: 'Kept', valueType: 6, rawValue: '5', schema: LIMIT })).body as Entry;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const then = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const tightened = await admin.put(`${base}/${limit.id}`, { rawValue: '100', schema: LIMIT, generation: 1 });
    expect(tightened.status, tightened.text).toBe(200);
    expect((await admin.delete(`${base}/${kept.id}`)).status).toBe(204);

    const dry = await admin.post(`${base}/restore`, { at: then });
    expect(dry.status, dry.text).toBe(200);
    const rows = dry.body.changes as PlanItem[];
    expect(rows.find((r) => r.key === 'Limit')?.violations[0]).toMatchObject({ keyword: 'maximum' });
    await expectRefusedCleanly(server, admin, watched, [versionId], () =>
      admin.post(`${base}/restore`, { at: then, dryRun: false, basedOn: dry.body.basedOn }),
    );

    const onlyKept = await admin.post(`${base}/restore`, { at: then, keys: ['Kept'] });
    const applied = await admin.post(`${base}/restore`, {
      at: then,
      keys: ['Kept'],
      dryRun: false,
      basedOn: onlyKept.body.basedOn,
    });
    expect(applied.status, applied.text).toBe(200);
    expect((await byKey(versionId, 'Kept')).schema).toEqual(LIMIT);
  });

  it('copies schemas into a version started as a copy', async () => {
    const copy = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: 'copy', copyFrom: target });
    expect(copy.status, copy.text).toBe(201);
    expect((await byKey(copy.body.id, 'Pool:Idle')).schema).toEqual(LIMIT);
  });

  it('compares schemas as metadata', async () => {
    const res = await admin.get(`/api/configversions/${serviceId}/compare?base=${source}&target=${target}`);
    const idle = res.body.differences.find((d: { key: string }) => d.key === 'Pool:Idle');
    expect(idle.metadataChanged).toBe(true);
    expect(idle.target.schema).toEqual(LIMIT);
  });
});
