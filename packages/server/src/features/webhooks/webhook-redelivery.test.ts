import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/** A redelivery and an attempt of the same delivery under way at once. */
describe.each(databaseKinds)('webhook redelivery during an attempt on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `redeliver-${kind}` })).body.id;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    base = `/api/configentries/${serviceId}/${versionId}`;
    expect((await admin.post(base, { key: 'Other:Flag', valueType: 1, rawValue: '0' })).status).toBe(201);
  });
  afterAll(() => server.close());

  const createWebhook = async (body: Record<string, unknown>) => {
    const res = await admin.post(`/api/services/${serviceId}/webhooks`, body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  };
  const deliveries = async (webhookId: string) =>
    (await admin.get(`/api/services/${serviceId}/webhooks/${webhookId}/deliveries`)).body.deliveries as Array<{
      id: string;
      status: string;
      attempts: Array<{ statusCode: number | null }>;
    }>;
  const setValues = async (values: Record<string, string>) => {
    const entries = (await admin.get(base)).body as any[];
    const body = Object.entries(values).map(([key, rawValue]) => {
      const e = entries.find((x) => x.key === key);
      return { id: e.id, rawValue, generation: e.generation };
    });
    expect((await admin.put(`${base}/set`, body)).status).toBe(200);
  };

  it('keeps a redelivery asked for while an attempt is under way: that attempt does not overwrite it', async () => {
    // The first request is answered 200 only once the redelivery has been asked for; the next at once.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const requests: string[] = [];
    const slow = http.createServer((req, res) => {
      requests.push(String(req.headers['webhook-id']));
      req.resume();
      req.on('end', () => {
        if (requests.length === 1) void released.then(() => res.writeHead(200).end('ok'));
        else res.writeHead(200).end('ok');
      });
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    try {
      const hook = await createWebhook({ url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook` });
      await setValues({ 'Other:Flag': 'in-flight' });
      await expect.poll(() => requests.length, { timeout: 10_000 }).toBe(1);
      const [inFlight] = await deliveries(hook.id);
      const res = await admin.post(
        `/api/services/${serviceId}/webhooks/${hook.id}/deliveries/${inFlight!.id}/redeliver`,
      );
      expect(res.status, res.text).toBe(202);
      release();
      // The attempt under way succeeds, and the redelivery still goes out: two attempts, both logged.
      await expect.poll(() => requests.length, { timeout: 10_000 }).toBe(2);
      expect(requests).toEqual([inFlight!.id, inFlight!.id]);
      await expect
        .poll(async () => (await deliveries(hook.id))[0]!.attempts.map((a) => a.statusCode), { timeout: 10_000 })
        .toEqual([200, 200]);
      expect((await deliveries(hook.id))[0]!.status).toBe('succeeded');
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });
});
