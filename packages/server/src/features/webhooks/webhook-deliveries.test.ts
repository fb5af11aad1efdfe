import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import {
  startWebhookReceiver,
  type ReceivedDelivery,
  type WebhookReceiver,
} from '@realtime-config/test-support/webhook-receiver';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

interface Delivery {
  id: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Array<{ at: string; statusCode: number | null; durationMs: number; error: string | null }>;
  nextAttemptAt: string | null;
}

const verify = (secret: string, d: ReceivedDelivery) => new Webhook(secret).verify(d.body, d.headers) as any;

/**
 * Deliveries as receivers see them: signed (checked here by the `standardwebhooks` package, the
 * specification's own implementation), one per committed change, filtered, retried with the same
 * webhook-id, disabled by 410, sent again on request, signed twice during a rotation.
 */
describe.each(databaseKinds)('webhook deliveries on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let receivers: WebhookReceiver[] = [];
  const ids = new Map<string, string>();

  const receiver = async (...answers: Array<number | 'hang'>) => {
    const r = await startWebhookReceiver({ answers: answers.length ? answers : [200] });
    receivers.push(r);
    return r;
  };
  const createWebhook = async (body: Record<string, unknown>) => {
    const res = await admin.post(`/api/services/${serviceId}/webhooks`, body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; secret: string; enabled: boolean };
  };
  const deliveries = async (webhookId: string) => {
    const res = await admin.get(`/api/services/${serviceId}/webhooks/${webhookId}/deliveries?pageSize=100`);
    expect(res.status, res.text).toBe(200);
    return res.body.deliveries as Delivery[];
  };
  const settled = async (webhookId: string, count: number) => {
    await expect
      .poll(async () => (await deliveries(webhookId)).filter((d) => d.status !== 'pending').length, { timeout: 20_000 })
      .toBe(count);
    return deliveries(webhookId);
  };
  /** Sets values by key in one batch. */
  const setValues = async (values: Record<string, string>, version = versionId) => {
    const entries = (await admin.get(`/api/configentries/${serviceId}/${version}`)).body as any[];
    const body = Object.entries(values).map(([key, rawValue]) => {
      const e = entries.find((x) => x.key === key);
      return { id: e.id, rawValue, generation: e.generation };
    });
    const res = await admin.put(`/api/configentries/${serviceId}/${version}/set`, body);
    expect(res.status, res.text).toBe(200);
  };
  const newVersion = async (label: string, keys: string[]) => {
    const res = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label });
    expect(res.status, res.text).toBe(201);
    for (const key of keys) {
      const created = await admin.post(`/api/configentries/${serviceId}/${res.body.id}`, {
        key,
        valueType: 1,
        rawValue: 'v0',
      });
      expect(created.status, created.text).toBe(201);
      ids.set(`${label}/${key}`, created.body.id);
    }
    return res.body.id as string;
  };

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: [
        `--Secrets:MasterKeyFile=${keyFile}`,
        '--Webhooks:AllowPrivateNetworks=true',
        '--Webhooks:RetrySchedule:0=0.2',
        '--Webhooks:RetrySchedule:1=0.2',
      ],
    });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `hooks-${kind}` })).body.id;
    versionId = await newVersion('1.0.0', [
      ...Array.from({ length: 40 }, (_, i) => `Batch:Key${i}`),
      'Payments:Timeout',
      'Payments:Mode',
      'Other:Flag',
    ]);
  });
  afterEach(async () => {
    // Each test's webhooks go, so they never receive the next test's changes.
    for (const w of (await admin.get(`/api/services/${serviceId}/webhooks`)).body as Array<{ id: string }>)
      await admin.delete(`/api/services/${serviceId}/webhooks/${w.id}`);
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });
  afterAll(() => server.close());

  it('signs each delivery verifiably, refuses a tampered body, and sends a batch of 40 values as one delivery', async () => {
    const r = await receiver();
    const hook = await createWebhook({ url: r.url, description: 'all changes' });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);

    const values = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`Batch:Key${i}`, `b${i}`]));
    await setValues(values);
    const [got] = await r.waitFor(1);
    const received = got!;
    expect(received.headers['content-type']).toBe('application/json');
    const payload = verify(hook.secret, received);
    expect(payload.type).toBe('entry.changed');
    expect(Number.isNaN(Date.parse(payload.timestamp))).toBe(false);
    expect(payload.data).toMatchObject({
      serviceId,
      versionId,
      versionLabel: '1.0.0',
      userId: 'admin',
      userName: 'admin',
    });
    expect(payload.data.changes).toHaveLength(40);
    const first = payload.data.changes[0];
    expect(first).toMatchObject({ key: 'Batch:Key0', entryId: ids.get('1.0.0/Batch:Key0'), action: 'ValueSet' });
    expect(first.before).toMatchObject({ key: 'Batch:Key0', rawValue: 'v0', generation: 1, valueType: 1 });
    expect(first.after).toMatchObject({ key: 'Batch:Key0', rawValue: 'b0', generation: 2 });
    expect(Object.keys(first.after).sort()).toEqual(
      Object.keys((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body[0]).sort(),
    );

    // The signature covers the body: one changed character and the package refuses it.
    const tampered = { ...received, body: received.body.replace('"b0"', '"b9"') };
    expect(() => verify(hook.secret, tampered)).toThrow(WebhookVerificationError);
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, received)).toThrow(WebhookVerificationError);

    const [logged] = await settled(hook.id, 1);
    expect(logged).toMatchObject({
      id: received.headers['webhook-id'],
      eventType: 'entry.changed',
      status: 'succeeded',
    });
    expect(logged!.attempts).toHaveLength(1);
    expect(logged!.attempts[0]).toMatchObject({ statusCode: 200, error: null });
    expect(r.received).toHaveLength(1);
  });

  it("shows a secret's value in no delivery: redacted with its fingerprint, as REST answers show it", async () => {
    const r = await receiver();
    const hook = await createWebhook({ url: r.url, keyPrefix: 'Vault:' });
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Vault:Password',
      valueType: 1,
      rawValue: 'plain-marker-7f3a',
      isSecret: true,
    });
    expect(created.status, created.text).toBe(201);
    await setValues({ 'Vault:Password': 'plain-marker-9c1e' });
    const got = await r.waitFor(2);
    for (const d of got) expect(d.body).not.toMatch(/plain-marker/);
    const [creation, set] = got.map((d) => verify(hook.secret, d).data.changes[0]);
    expect(creation.after).toMatchObject({ key: 'Vault:Password', rawValue: null, isSecret: true, redacted: true });
    expect(set.before.fingerprint).toBe(creation.after.fingerprint);
    expect(set.after.fingerprint).toMatch(/^[0-9a-f]{16,}$/);
    expect(set.after.fingerprint).not.toBe(set.before.fingerprint);
    const stored = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as any[];
    expect(stored.find((e) => e.key === 'Vault:Password')?.fingerprint).toBe(set.after.fingerprint);
  });

  it('tells each webhook only what it asks for: event types, versions, key prefix', async () => {
    const all = await receiver();
    const payments = await receiver();
    const versionsOnly = await receiver();
    const oneVersion = await receiver();
    const allHook = await createWebhook({ url: all.url });
    const paymentsHook = await createWebhook({
      url: payments.url,
      keyPrefix: 'Payments:',
      eventTypes: ['entry.changed', 'version.created'],
    });
    const versionsHook = await createWebhook({
      url: versionsOnly.url,
      eventTypes: ['version.created', 'version.deleted'],
    });
    const foreign = await admin.post(`/api/services/${serviceId}/webhooks`, {
      url: oneVersion.url,
      versionIds: [crypto.randomUUID()],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.versionIds).toHaveLength(1);
    const v2 = await newVersion('2.0.0', []);
    const onlyV2 = await createWebhook({ url: oneVersion.url, versionIds: [v2] });

    await setValues({ 'Payments:Timeout': '30', 'Other:Flag': 'on' });
    await setValues({ 'Other:Flag': 'off' });
    const deleted = await admin.delete(`/api/configversions/${serviceId}/${v2}`);
    expect(deleted.status).toBe(204);

    /** What a receiver got, in the order of the changes. */
    const bodies = (r: WebhookReceiver) =>
      r.received.map((d) => JSON.parse(d.body)).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    await settled(allHook.id, 4);
    expect(bodies(all).map((b) => b.type)).toEqual([
      'version.created',
      'entry.changed',
      'entry.changed',
      'version.deleted',
    ]);
    expect(bodies(all)[1].data.changes.map((c: any) => c.key)).toEqual(['Payments:Timeout', 'Other:Flag']);
    // Payments: only its key of the first batch; the second batch holds none of its keys, and
    // version events ignore the prefix.
    await settled(paymentsHook.id, 2);
    expect(bodies(payments).map((b) => b.type)).toEqual(['version.created', 'entry.changed']);
    expect(bodies(payments)[1].data.changes.map((c: any) => c.key)).toEqual(['Payments:Timeout']);
    // Version events carry the version and no changes.
    const versionEvent = bodies(all)[3];
    expect(versionEvent.data).toMatchObject({ versionId: v2, versionLabel: '2.0.0', changes: [] });
    expect(versionEvent.data.version).toMatchObject({ id: v2, serviceId, versionLabel: '2.0.0' });
    await settled(versionsHook.id, 2);
    expect(bodies(versionsOnly).map((b) => b.type)).toEqual(['version.created', 'version.deleted']);
    // The webhook of 2.0.0 (made after its creation) heard only of its deletion.
    await settled(onlyV2.id, 1);
    expect(bodies(oneVersion).map((b) => b.type)).toEqual(['version.deleted']);
  });

  it('retries a failed delivery with the same webhook-id and logs every attempt; fails after the last', async () => {
    const flaky = await receiver(500, 302, 200);
    const broken = await receiver(503);
    const flakyHook = await createWebhook({ url: flaky.url });
    const brokenHook = await createWebhook({ url: broken.url });
    await setValues({ 'Payments:Mode': 'retry' });

    const [ok] = await settled(flakyHook.id, 1);
    expect(ok!.status).toBe('succeeded');
    expect(ok!.attempts.map((a) => a.statusCode)).toEqual([500, 302, 200]);
    expect(ok!.attempts.map((a) => a.error)).toEqual(['HTTP 500', 'HTTP 302', null]);
    expect(new Set(flaky.received.map((d) => d.headers['webhook-id']))).toEqual(new Set([ok!.id]));
    for (const d of flaky.received) expect(verify(flakyHook.secret, d).data.changes[0].after.rawValue).toBe('retry');

    // Two retries in the schedule: three attempts, then failed.
    const [failed] = await settled(brokenHook.id, 1);
    expect(failed).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(failed!.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503]);
    expect(broken.received).toHaveLength(3);
  });

  it('disables a webhook that answers 410 and sends it nothing more', async () => {
    const gone = await receiver(410);
    const hook = await createWebhook({ url: gone.url });
    await setValues({ 'Payments:Mode': 'gone' });
    const [d] = await settled(hook.id, 1);
    expect(d).toMatchObject({ status: 'failed' });
    expect(d!.attempts.map((a) => a.statusCode)).toEqual([410]);
    expect((await admin.get(`/api/services/${serviceId}/webhooks/${hook.id}`)).body.enabled).toBe(false);

    await setValues({ 'Payments:Mode': 'after' });
    expect(await deliveries(hook.id)).toHaveLength(1);
    expect(gone.received).toHaveLength(1);
  });

  it('redelivers a delivery with the same webhook-id as one more attempt', async () => {
    const r = await receiver();
    const hook = await createWebhook({ url: r.url });
    await setValues({ 'Other:Flag': 'again' });
    const [first] = await settled(hook.id, 1);
    const res = await admin.post(`/api/services/${serviceId}/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`);
    expect(res.status, res.text).toBe(202);
    const [a, b] = await r.waitFor(2);
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(b!.body).toBe(a!.body);
    verify(hook.secret, b!);
    await expect.poll(async () => (await deliveries(hook.id))[0]!.attempts.length, { timeout: 10_000 }).toBe(2);
    expect(await deliveries(hook.id)).toHaveLength(1);

    const unknown = await admin.post(
      `/api/services/${serviceId}/webhooks/${hook.id}/deliveries/${crypto.randomUUID()}/redeliver`,
    );
    expect(unknown.status).toBe(404);
  });

  it('signs with both secrets after a rotation', async () => {
    const r = await receiver();
    const hook = await createWebhook({ url: r.url });
    const rotated = await admin.post(`/api/services/${serviceId}/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const { secret } = rotated.body as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    await setValues({ 'Other:Flag': 'rotated' });
    const [d] = await r.waitFor(1);
    expect(d!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(secret, d!).data.changes[0].after.rawValue).toBe('rotated');
    expect(verify(hook.secret, d!).data.changes[0].after.rawValue).toBe('rotated');
  });
});
