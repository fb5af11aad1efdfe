import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '@realtime-config/test-support/server-process';
import { createTestDatabase, databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

/**
 * Seconds waited after each failed attempt: short, so the spacing shows within a test, and distinct,
 * so each step's own wait is checked.
 */
const SCHEDULE = [0.5, 1, 1.5];
const JITTER = 0.1;
/** How late a due retry may go out: the dispatcher sleeps until the earliest due delivery. */
const LATE_MS = 1500;

interface Delivery {
  id: string;
  status: string;
  attempts: Array<{ at: string; statusCode: number | null; error: string | null }>;
  nextAttemptAt: string | null;
}

/**
 * On PostgreSQL two instances share the database, so the instance that claims a retry may not be
 * the one that scheduled it: both must keep to the schedule.
 */
async function startServers(kind: 'sqlite' | 'postgres'): Promise<{ servers: TestServer[]; drop(): Promise<void> }> {
  const args = [
    '--Webhooks:AllowPrivateNetworks=true',
    ...SCHEDULE.map((seconds, i) => `--Webhooks:RetrySchedule:${i}=${seconds}`),
  ];
  if (kind === 'sqlite') return { servers: [await startTestServer({ kind, args })], drop: async () => undefined };
  const database = await createTestDatabase('postgres');
  const servers = [await startTestServer({ database, args }), await startTestServer({ database, args })];
  return { servers, drop: () => database.drop() };
}

/** A service with one entry and a webhook to `url`; `change()` commits one change of it. */
async function setUp(admin: ApiClient, url: string) {
  const serviceId = (await admin.post('/api/services', { name: 'retries' })).body.id as string;
  const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
  const base = `/api/configentries/${serviceId}/${versionId}`;
  const entry = await admin.post(base, { key: 'Key', valueType: 1, rawValue: '0' });
  expect(entry.status, entry.text).toBe(201);
  const hook = await admin.post(`/api/services/${serviceId}/webhooks`, { url });
  expect(hook.status, hook.text).toBe(201);
  const deliveries = `/api/services/${serviceId}/webhooks/${hook.body.id}/deliveries`;
  return {
    async change() {
      const res = await admin.put(`${base}/set`, [{ id: entry.body.id, rawValue: '1', generation: 1 }]);
      expect(res.status, res.text).toBe(200);
    },
    async delivery(): Promise<Delivery | undefined> {
      return ((await admin.get(deliveries)).body.deliveries as Delivery[])[0];
    },
  };
}

const micros = (iso: string): number => Date.parse(iso) * 1000 + Number(/\.\d{3}(\d{3})Z$/.exec(iso)?.[1] ?? 0);

describe.each(databaseKinds)('webhook retries on %s', (kind) => {
  let started: Awaited<ReturnType<typeof startServers>> | undefined;
  let receiver: WebhookReceiver | undefined;
  const admin = async () => {
    started = await startServers(kind);
    return started.servers[0]!.admin();
  };
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    for (const server of started?.servers ?? []) await server.close();
    await started?.drop();
    started = undefined;
  });

  it('waits for each step of the schedule between attempts, never less, and sends a due retry soon after', async () => {
    receiver = await startWebhookReceiver({ answers: [500, 500, 500, 200] });
    const hook = await setUp(await admin(), receiver.url);
    await hook.change();
    await expect
      .poll(async () => (await hook.delivery())?.status, { timeout: 20_000, interval: 200 })
      .toBe('succeeded');

    const delivery = (await hook.delivery())!;
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 200]);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(delivery.id));
    for (const [i, seconds] of SCHEDULE.entries()) {
      const earliest = seconds * (1 - JITTER) * 1000;
      // As the server recorded the attempts (each starts after the previous one ended and waited).
      const recorded = (micros(delivery.attempts[i + 1]!.at) - micros(delivery.attempts[i]!.at)) / 1000;
      expect(recorded).toBeGreaterThanOrEqual(earliest);
      // As the receiver saw them.
      const seen = receiver.received[i + 1]!.receivedAt - receiver.received[i]!.receivedAt;
      expect(seen).toBeGreaterThanOrEqual(earliest);
      expect(seen).toBeLessThan(seconds * (1 + JITTER) * 1000 + LATE_MS);
    }
  });

  it('delivers to a receiver that is down for a second and then back', async () => {
    const port = await findFreePort();
    const hook = await setUp(await admin(), `http://127.0.0.1:${port}/hook`);
    await hook.change();
    // Nothing listens yet: the first attempt fails, and the next waits for its step.
    await expect.poll(async () => (await hook.delivery())?.attempts.length, { timeout: 10_000 }).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    receiver = await startWebhookReceiver({ port });
    await expect
      .poll(async () => (await hook.delivery())?.status, { timeout: 20_000, interval: 200 })
      .toBe('succeeded');
    const delivery = (await hook.delivery())!;
    expect(delivery.attempts[0]!.statusCode).toBeNull();
    expect(delivery.attempts.at(-1)!.statusCode).toBe(200);
    expect(receiver.received).toHaveLength(1);
  });
});
