import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { guardedLookup } from './webhook-targets.js';

/**
 * IPv6 spellings that carry a private, loopback or link-local IPv4 address, in hex and in dotted
 * form, with the IPv4 address each one carries.
 */
const EMBEDDED: ReadonlyArray<[string, string]> = [
  // IPv4-mapped
  ['::ffff:127.0.0.1', '127.0.0.1'],
  ['::ffff:7f00:1', '127.0.0.1'],
  ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
  ['::ffff:10.1.2.3', '10.1.2.3'],
  ['::ffff:a9fe:a9fe', '169.254.169.254'],
  // IPv4-compatible
  ['::127.0.0.1', '127.0.0.1'],
  ['::7f00:1', '127.0.0.1'],
  ['0:0:0:0:0:0:7f00:1', '127.0.0.1'],
  ['::10.1.2.3', '10.1.2.3'],
  ['::a01:203', '10.1.2.3'],
  ['::169.254.169.254', '169.254.169.254'],
  ['::c0a8:1', '192.168.0.1'],
  // IPv4-translated (SIIT)
  ['::ffff:0:127.0.0.1', '127.0.0.1'],
  ['::ffff:0:a01:203', '10.1.2.3'],
  // NAT64, the well-known prefix
  ['64:ff9b::127.0.0.1', '127.0.0.1'],
  ['64:ff9b::7f00:1', '127.0.0.1'],
  ['64:ff9b:0:0:0:0:a9fe:a9fe', '169.254.169.254'],
  ['64:ff9b::192.168.0.1', '192.168.0.1'],
  // 6to4: the IPv4 address follows 2002:
  ['2002:7f00:1::', '127.0.0.1'],
  ['2002:7f00:0001:0:0:0:0:1', '127.0.0.1'],
  ['2002:a01:203::1', '10.1.2.3'],
  ['2002:a9fe:a9fe:1::', '169.254.169.254'],
];

/** Forms that carry a public IPv4 address reach that address: they are judged by it. */
const PUBLIC: readonly string[] = ['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];

/** Refused whatever they carry: where the local-use NAT64 prefix puts the address depends on the network. */
const ALWAYS_REFUSED: readonly string[] = ['64:ff9b:1::8.8.8.8', '64:ff9b:1::7f00:1'];

function sharedDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'postgres') return createTestDatabase('postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-hook-targets-'));
  return Promise.resolve({
    name: 'sqlite',
    args: [`--Database:DataDir=${dir}`],
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
}

describe.each(databaseKinds)('webhook targets that embed an IPv4 address on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await sharedDatabase(kind);
  });
  afterAll(() => database.drop());

  it('refuses a webhook saved with any spelling of one by the address it carries, and accepts a public one', async () => {
    const server = await startTestServer({ database });
    try {
      const admin = await server.admin();
      const serviceId = (await admin.post('/api/services', { name: `embedded-${kind}` })).body.id as string;
      const base = `/api/services/${serviceId}/webhooks`;
      for (const [address, carried] of EMBEDDED) {
        const res = await admin.post(base, { url: `https://[${address}]/hook` });
        expect(res.status, address).toBe(400);
        expect(res.body.errors.url, address).toHaveLength(1);
        expect(res.body.errors.url[0], address).toContain(` for ${carried}, a `);
      }
      for (const address of ALWAYS_REFUSED) {
        const res = await admin.post(base, { url: `https://[${address}]/hook` });
        expect(res.status, address).toBe(400);
      }
      expect((await admin.get(base)).body).toHaveLength(0);
      for (const address of PUBLIC) {
        const res = await admin.post(base, { url: `https://[${address}]/hook` });
        expect(res.status, `${address}: ${res.text}`).toBe(201);
      }
    } finally {
      await server.close();
    }
  });

  it('refuses a delivery to one saved while private networks were allowed', async () => {
    const receiver = await startWebhookReceiver();
    const literals = ['::ffff:7f00:1', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '::ffff:0:7f00:1'];
    const permissive = await startTestServer({ database, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    const admin = await permissive.admin();
    const serviceId = (await admin.post('/api/services', { name: `embedded-delivery-${kind}` })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
    const entry = (
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: '0' })
    ).body;
    const base = `/api/services/${serviceId}/webhooks`;
    const hooks: string[] = [];
    for (const address of literals) {
      const res = await admin.post(base, { url: `http://[${address}]:${receiver.port}/hook` });
      expect(res.status, res.text).toBe(201);
      hooks.push(res.body.id);
    }
    await permissive.close();

    const strict = await startTestServer({ database, args: ['--Webhooks:RetrySchedule:0=0.1'] });
    try {
      const admin = await strict.admin();
      const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: entry.id, rawValue: '1', generation: entry.generation },
      ]);
      expect(set.status, set.text).toBe(200);
      for (const hook of hooks) {
        const deliveries = async () => (await admin.get(`${base}/${hook}/deliveries`)).body.deliveries;
        await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 15_000 }).toBe('failed');
        const [delivery] = await deliveries();
        expect(delivery.attempts).toHaveLength(2);
        for (const attempt of delivery.attempts) {
          expect(attempt.statusCode).toBeNull();
          expect(attempt.error).toMatch(/^refused: .* for 127\.0\.0\.1, a loopback address$/);
        }
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.close();
      await receiver.close();
    }
  });
});

describe("a delivery's resolved addresses", () => {
  const lookup = (host: string) =>
    new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(host, {}, (error) => resolve(error)));

  it('are refused when the resolver answers any spelling that carries a private IPv4 address', async () => {
    for (const [address, carried] of EMBEDDED) {
      const error = await lookup(address);
      expect(error?.code, address).toBe('EWEBHOOKTARGET');
      expect(error?.message, address).toContain(` for ${carried}, a `);
    }
    for (const address of ALWAYS_REFUSED) expect((await lookup(address))?.code, address).toBe('EWEBHOOKTARGET');
    for (const address of PUBLIC) expect(await lookup(address), address).toBeNull();
  });
});
