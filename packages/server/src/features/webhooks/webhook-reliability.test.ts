import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase, databaseKinds, postgresUrl } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

interface Delivery {
  id: string;
  status: string;
  attempts: Array<{ statusCode: number | null }>;
}

/** A service with one version holding `keys`, and a webhook per receiver; answers what the tests need. */
async function setUpService(admin: ApiClient, name: string, keys: string[], urls: string[]) {
  const serviceId = (await admin.post('/api/services', { name })).body.id as string;
  const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
  const entries = new Map<string, { id: string; generation: number }>();
  // Independent requests go together: on PostgreSQL each webhook's creation answers only after
  // the other instances' caches have expired (half a second).
  const created = await Promise.all(
    keys.map((key) => admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue: '0' })),
  );
  for (const [i, res] of created.entries()) {
    expect(res.status, res.text).toBe(201);
    entries.set(keys[i]!, res.body);
  }
  const hooks: string[] = [];
  for (const res of await Promise.all(urls.map((url) => admin.post(`/api/services/${serviceId}/webhooks`, { url })))) {
    expect(res.status, res.text).toBe(201);
    hooks.push(res.body.id);
  }
  /** Sets one value (at its current generation); answers the status. */
  const set = async (client: ApiClient, key: string, rawValue: string) => {
    const entry = entries.get(key)!;
    const res = await client.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: entry.id, rawValue, generation: entry.generation },
    ]);
    if (res.status === 200) entries.set(key, res.body[0]);
    return res;
  };
  const deliveries = async (client: ApiClient, hookId: string) =>
    (await client.get(`/api/services/${serviceId}/webhooks/${hookId}/deliveries?pageSize=500`)).body
      .deliveries as Delivery[];
  return { serviceId, versionId, hooks, set, deliveries };
}

describe.each(databaseKinds)('webhook reliability on %s', (kind) => {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await killServerProcesses();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('delivers a change committed just before a SIGKILL after the restart, exactly once per receiver', async () => {
    const database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rc-hook-kill-'));
    let restarted: TestServer | undefined;
    try {
      const port = await findFreePort();
      // Nothing listens on the receivers' ports yet: no attempt can succeed before the kill.
      const receiverPorts = [await findFreePort(), await findFreePort()];
      const databaseArgs = database ? database.args : [`--Database:DataDir=${dataDir}`];
      const instanceArgs = [
        '--Webhooks:AllowPrivateNetworks=true',
        ...[0, 1, 2, 3, 4, 5].map((i) => `--Webhooks:RetrySchedule:${i}=0.5`),
      ];
      const server = await startServerProcess({ args: serverProcessArgs(port, [...databaseArgs, ...instanceArgs]) });
      const admin = await new ApiClient(server.baseUrl).login('admin', ADMIN_PASSWORD);
      const urls = receiverPorts.map((p) => `http://127.0.0.1:${p}/hook`);
      const service = await setUpService(admin, `killed-${kind}`, ['Key'], urls);
      const res = await service.set(admin, 'Key', 'committed');
      expect(res.status, res.text).toBe(200);
      await server.kill();

      for (const p of receiverPorts) receivers.push(await startWebhookReceiver({ port: p }));
      // The instance that starts next on the same database: in this process, a start of about a second.
      restarted = await startTestServer({
        database: { name: kind, args: databaseArgs, drop: () => Promise.resolve() },
        args: instanceArgs,
      });
      const again = await restarted.admin();
      for (const [i, hookId] of service.hooks.entries()) {
        await expect
          .poll(async () => (await service.deliveries(again, hookId))[0]?.status, { timeout: 30_000 })
          .toBe('succeeded');
        const received = receivers[i]!.received;
        expect(received).toHaveLength(1);
        expect(JSON.parse(received[0]!.body).data.changes[0].after.rawValue).toBe('committed');
        const [delivery] = await service.deliveries(again, hookId);
        expect(received[0]!.headers['webhook-id']).toBe(delivery!.id);
      }
    } finally {
      await restarted?.close();
      await killServerProcesses();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers REST writes while a receiver hangs', async () => {
    const hanging = await startWebhookReceiver({ answers: ['hang'] });
    receivers.push(hanging);
    const server = await startTestServer({ kind, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    try {
      const admin = await server.admin();
      const service = await setUpService(
        admin,
        `hanging-${kind}`,
        ['Key'],
        Array.from({ length: 10 }, () => hanging.url),
      );
      const writes = 20;
      for (let i = 0; i < writes; i++) expect((await service.set(admin, 'Key', `v${i}`)).status).toBe(200);
      // Every write answered while the receiver still held deliveries unanswered: none waited for one.
      expect(hanging.hanging).toBeGreaterThan(0);
      const pending = await Promise.all(service.hooks.map((h) => service.deliveries(admin, h)));
      expect(pending.flat()).toHaveLength(writes * 10);
      expect(pending.flat().every((d) => d.status === 'pending')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!postgresUrl)('webhooks with two instances on one PostgreSQL', () => {
  afterAll(() => killServerProcesses());

  it('sends each delivery from one instance only', async () => {
    const database = await createTestDatabase('postgres');
    const args = [
      '--Webhooks:AllowPrivateNetworks=true',
      ...[0, 1, 2, 3, 4].map((i) => `--Webhooks:RetrySchedule:${i}=0.2`),
    ];
    const a = await startTestServer({ database, args });
    const b = await startTestServer({ database, args });
    // The first answers fail, so retries are due on both instances at once and both race to claim.
    const receiver = await startWebhookReceiver({ answers: [...Array<number>(30).fill(500), 200] });
    try {
      const adminA = await a.admin();
      const adminB = await b.admin();
      const keys = Array.from({ length: 20 }, (_, i) => `Key${i}`);
      const service = await setUpService(adminA, 'two-instances', keys, [receiver.url, receiver.url]);
      await Promise.all(
        keys.map(async (key, i) => expect((await service.set(i % 2 ? adminA : adminB, key, 'x')).status).toBe(200)),
      );
      const all = async () => (await Promise.all(service.hooks.map((h) => service.deliveries(adminA, h)))).flat();
      await expect
        .poll(async () => (await all()).filter((d) => d.status === 'succeeded').length, { timeout: 30_000 })
        .toBe(40);
      const deliveries = await all();
      const requests = new Map<string, number[]>();
      for (const r of receiver.received) {
        const id = r.headers['webhook-id']!;
        requests.set(id, [...(requests.get(id) ?? []), r.answer as number]);
      }
      expect(requests.size).toBe(40);
      for (const d of deliveries) {
        // Each attempt was sent once (by one instance), and exactly one of them succeeded.
        expect(requests.get(d.id)).toEqual(d.attempts.map((attempt) => attempt.statusCode));
        expect(requests.get(d.id)!.filter((status) => status === 200)).toHaveLength(1);
      }
    } finally {
      await receiver.close();
      await a.close();
      await b.close();
      await database.drop();
    }
  });

  it("tells a webhook of every change committed on any instance after its creation's answer, and a deleted one of none", async () => {
    const database = await createTestDatabase('postgres');
    const args = ['--Webhooks:AllowPrivateNetworks=true'];
    const a = await startTestServer({ database, args });
    const b = await startTestServer({ database, args });
    const receiver = await startWebhookReceiver();
    try {
      const adminA = await a.admin();
      const adminB = await b.admin();
      const service = await setUpService(adminA, 'created-elsewhere', ['Key'], []);
      const base = `/api/services/${service.serviceId}/webhooks`;
      for (let round = 0; round < 3; round++) {
        // B has just written: it knows the service as one without webhooks.
        expect((await service.set(adminB, 'Key', `before-${round}`)).status).toBe(200);
        const created = await adminA.post(base, { url: receiver.url });
        expect(created.status, created.text).toBe(201);
        expect((await service.set(adminB, 'Key', `after-${round}`)).status).toBe(200);
        await expect
          .poll(() => receiver.received.map((d) => JSON.parse(d.body).data.changes[0].after.rawValue), {
            timeout: 10_000,
          })
          .toContain(`after-${round}`);
        // B knows the webhook now; deleted on A, it gets nothing of B's next change, which still commits.
        expect((await adminA.delete(`${base}/${created.body.id}`)).status).toBe(204);
        expect((await service.set(adminB, 'Key', `deleted-${round}`)).status).toBe(200);
      }
      // A disabled webhook (on A) gets nothing of B's changes either.
      const disabled = await adminA.post(base, { url: receiver.url });
      expect((await service.set(adminB, 'Key', 'enabled')).status).toBe(200);
      const off = await adminA.put(`${base}/${disabled.body.id}`, { url: receiver.url, enabled: false });
      expect(off.status, off.text).toBe(200);
      expect((await service.set(adminB, 'Key', 'disabled')).status).toBe(200);
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const values = receiver.received.map((d) => JSON.parse(d.body).data.changes[0].after.rawValue);
      expect(values.sort()).toEqual(['after-0', 'after-1', 'after-2', 'enabled']);
      expect(await service.deliveries(adminA, disabled.body.id)).toHaveLength(1);
    } finally {
      await receiver.close();
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});
