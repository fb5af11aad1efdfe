import * as grpc from '@grpc/grpc-js';
import { connect, defineConfig, group, string, type LiveConfig } from '@realtime-config/client';
import { timestampFromMicros, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { seededRandom } from '@realtime-config/test-support/seeded-random';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { createPgCluster, pgBinaries, type PgCluster } from '@realtime-config/test-support/pg-cluster';
import {
  entriesByKey,
  readMetric,
  registerVersion,
  rowOf,
  setValue,
  type EventRow,
} from '@realtime-config/test-support/realtime-fixtures';
import type { TestDatabase } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { until as waitUntil } from '@realtime-config/test-support/until';

/**
 * Regions (docs/regions.md): a primary and a hot standby of its own (pg_basebackup -R, streaming
 * replication), one server instance on the primary and two followers on the standby, one of them
 * with Server:PrimaryUrl. The clusters are slow to make, so every test shares them, in order: the
 * last two stop the primary and promote the standby.
 */
if (!pgBinaries) {
  process.stdout.write(
    'Follower tests skipped: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin to start a primary and a standby.\n',
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Background work here takes longer than the default wait. */
const until = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) =>
  waitUntil(condition, what, timeoutMs);

const clusterDatabase = (cluster: PgCluster): TestDatabase => ({
  name: 'postgres',
  args: [`--Database:Url=${cluster.url('rc')}`],
  drop: () => Promise.resolve(),
});

const withKey = (key: string): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${key}`);
  return metadata;
};

const flatRows = (s: Subscription): EventRow[] => s.configEvents.map(rowOf);

const schema = defineConfig({ Region: group({ Name: string({ default: 'none' }), Mode: string({ default: 'off' }) }) });
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe.skipIf(!pgBinaries)('followers on a PostgreSQL hot standby', () => {
  let primaryDb: PgCluster;
  let standbyDb: PgCluster;
  let primary: TestServer;
  /** A follower with Server:PrimaryUrl: it forwards writes. */
  let follower: TestServer;
  /** A follower without it: it refuses writes; readiness turns at 1 s of delay. */
  let lone: TestServer;
  let admin: ApiClient;
  const grpcClients: GrpcTestClient[] = [];
  const configs: Array<LiveConfig<typeof schema>> = [];
  const grpcOf = (server: TestServer): GrpcTestClient => {
    const client = new GrpcTestClient(`127.0.0.1:${server.port}`);
    grpcClients.push(client);
    return client;
  };
  const args = ['--Grpc:RequireAuthentication=true', '--Webhooks:AllowPrivateNetworks=true'];

  /** A service with an API key of every scope but secrets, made at the primary. */
  const newService = async (name: string): Promise<{ serviceId: string; key: string }> => {
    const serviceId = (await admin.post('/api/services', { name })).body.id as string;
    const created = await admin.post(`/api/services/${serviceId}/apikeys`, {
      name: 'app',
      scopes: ['read', 'register', 'write'],
    });
    expect(created.status).toBe(201);
    return { serviceId, key: created.body.key as string };
  };

  /** Resolves once the follower's standby has the version (replication is asynchronous). */
  const replicated = (server: TestServer, serviceId: string, version: string, key: string) =>
    until(
      async () => Boolean((await grpcOf(server).isVersionExists({ serviceId, version }, withKey(key))).versionId),
      `version ${version} on the standby`,
    );

  beforeAll(async () => {
    primaryDb = await createPgCluster();
    await primaryDb.createDatabase('rc');
    primary = await startTestServer({ database: clusterDatabase(primaryDb), args });
    standbyDb = await primaryDb.createStandby();
    follower = await startTestServer({
      database: clusterDatabase(standbyDb),
      args: [...args, `--Server:PrimaryUrl=${primary.baseUrl}`, '--Database:FollowIntervalMilliseconds=50'],
    });
    lone = await startTestServer({
      database: clusterDatabase(standbyDb),
      args: [...args, '--Database:MaxFollowerLagSeconds=1'],
    });
    admin = await primary.admin();
  }, 180_000);

  afterAll(async () => {
    for (const config of configs) await config.close();
    for (const client of grpcClients) client.close();
    await lone?.close();
    await follower?.close();
    await primary?.close();
    await standbyDb?.destroy();
    await primaryDb?.destroy();
  }, 60_000);

  it("a change made at the primary reaches an SDK on a follower, with the primary's timestamps and order", async () => {
    const { serviceId, key } = await newService('regions-sdk');
    // The application starts in its region: its registration (CreateVersion) is forwarded.
    const config = await connect({
      url: follower.baseUrl,
      serviceId,
      version: '1.0.0',
      schema,
      apiKey: key,
      pollingInterval: 200,
      logger: quiet,
    });
    configs.push(config);
    const versionId = (await grpcOf(primary).isVersionExists({ serviceId, version: '1.0.0' }, withKey(key)))
      .versionId as string;
    expect(versionId).toBeTruthy();
    const atPrimary = grpcOf(primary).subscribe({ serviceId, versionId }, withKey(key));
    const atFollower = grpcOf(follower).subscribe({ serviceId, versionId }, withKey(key));
    await atPrimary.until((s) => s.configEvents.length === 2);
    await atFollower.until((s) => s.configEvents.length === 2);

    const entries = await entriesByKey(admin, serviceId, versionId);
    await setValue(admin, serviceId, versionId, entries['Region:Name']!, 'eu-west');
    await setValue(admin, serviceId, versionId, entries['Region:Mode']!, 'on');
    const batch = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: entries['Region:Name']!.id, rawValue: 'eu-central', generation: entries['Region:Name']!.generation },
      { id: entries['Region:Mode']!.id, rawValue: 'shadow', generation: entries['Region:Mode']!.generation },
    ]);
    expect(batch.status).toBe(200);
    await until(() => config.values.Region.Mode === 'shadow', 'the last change at the SDK');
    expect(config.values.Region.Name).toBe('eu-central');

    await atPrimary.until((s) => s.configEvents.length === 6);
    await atFollower.until((s) => s.configEvents.length === 6);
    const rows = flatRows(atPrimary);
    expect(flatRows(atFollower)).toEqual(rows);
    const changes = rows.slice(2).map((r) => r.timestamp);
    expect(changes[0]).toBeLessThan(changes[1]!);
    expect(changes[2]).toBeGreaterThan(changes[1]!);
    expect(changes[3]).toBe(changes[2]); // one batch, one timestamp
  });

  it('writers racing on several versions: each follower stream gets every change once, as the primary sent it', async () => {
    const { serviceId, key } = await newService('regions-race');
    const keys = ['R:A', 'R:B', 'R:C'];
    const versions = await Promise.all(
      ['1.0.0', '2.0.0', '3.0.0', '4.0.0'].map((label) =>
        registerVersion(
          grpcOf(primary),
          serviceId,
          label,
          keys.map((k) => ({ key: k })),
          withKey(key),
        ),
      ),
    );
    for (const label of ['1.0.0', '2.0.0', '3.0.0', '4.0.0']) await replicated(follower, serviceId, label, key);
    const streams = versions.map((versionId) => ({
      versionId,
      atPrimary: grpcOf(primary).subscribe({ serviceId, versionId }, withKey(key)),
      atFollower: grpcOf(follower).subscribe({ serviceId, versionId }, withKey(key)),
    }));
    const random = seededRandom(Number(process.env.RC_TEST_SEED ?? 17));
    const writers = await Promise.all(Array.from({ length: 4 }, () => primary.admin()));
    let committed = 0;
    for (let round = 0; round < 3; round++) {
      // Transactions of different versions commit in any order, whatever order their rows got ids in.
      await Promise.all(
        writers.map(async (writer) => {
          for (let i = 0; i < 12; i++) {
            const versionId = versions[Math.floor(random() * versions.length)]!;
            const entry = (await entriesByKey(writer, serviceId, versionId))[
              keys[Math.floor(random() * keys.length)]!
            ]!;
            const res = await writer.put(`/api/configentries/${serviceId}/${versionId}/set`, [
              { id: entry.id, rawValue: `${round}-${i}`, generation: entry.generation },
            ]);
            if (res.status === 200) committed++;
            else expect(res.status).toBe(409); // another writer changed it first
          }
        }),
      );
    }
    const total = 3 * versions.length + committed;
    const count = (side: 'atPrimary' | 'atFollower') =>
      streams.reduce((sum, s) => sum + s[side].configEvents.length, 0);
    await until(() => count('atPrimary') === total && count('atFollower') === total, 'every change at every stream');
    for (const { atPrimary, atFollower } of streams) {
      expect(flatRows(atFollower)).toEqual(flatRows(atPrimary));
      for (const k of keys) {
        const generations = flatRows(atFollower)
          .filter((r) => r.key === k)
          .map((r) => r.generation);
        expect(generations).toEqual(generations.map((_, i) => i + 1));
      }
    }
  });

  it("a client resumes on a follower from a primary's timestamp: nothing missed, nothing twice", async () => {
    const { serviceId, key } = await newService('regions-resume');
    const versionId = await registerVersion(
      grpcOf(primary),
      serviceId,
      '1.0.0',
      [{ key: 'A:X' }, { key: 'A:Y' }],
      withKey(key),
    );
    const entries = await entriesByKey(admin, serviceId, versionId);
    await setValue(admin, serviceId, versionId, entries['A:X']!, 'one');
    const first = grpcOf(primary).subscribe({ serviceId, versionId }, withKey(key));
    await first.until((s) => s.configEvents.some((e) => e.value === 'one'));
    const resumeFrom = Math.max(...flatRows(first).map((r) => r.timestamp));
    first.cancel();

    // While the client is away, two changes at the primary; it comes back in the follower's region.
    await setValue(admin, serviceId, versionId, entries['A:Y']!, 'two');
    await setValue(admin, serviceId, versionId, entries['A:X']!, 'three');
    await replicated(follower, serviceId, '1.0.0', key);
    const timestamp = timestampFromMicros(resumeFrom);
    const resumed = grpcOf(follower).subscribe({ serviceId, versionId, timestamp }, withKey(key));
    const reference = grpcOf(primary).subscribe({ serviceId, versionId, timestamp }, withKey(key));
    await resumed.until((s) => s.configEvents.some((e) => e.value === 'three'));
    await reference.until((s) => s.configEvents.some((e) => e.value === 'three'));
    expect(flatRows(resumed).map((r) => r.value)).toEqual(['two', 'three']);
    expect(flatRows(resumed)).toEqual(flatRows(reference));

    await setValue(admin, serviceId, versionId, entries['A:Y']!, 'four');
    await resumed.until((s) => s.configEvents.length === 3);
    await reference.until((s) => s.configEvents.length === 3);
    expect(flatRows(resumed)).toEqual(flatRows(reference));
    expect(resumed.status).toBeUndefined();
  });

  it('forwards REST writes, sign-in and CreateVersion to the primary with the caller credentials', async () => {
    // Signed in through the follower: the primary made the session, the follower reads it at once.
    const browser = new ApiClient(follower.baseUrl);
    await browser.login('admin', ADMIN_PASSWORD);
    expect((await browser.get('/auth/me')).status).toBe(200);

    const created = await browser.post('/api/services', { name: 'made-in-a-follower-region' });
    expect(created.status).toBe(201);
    const serviceId = created.body.id as string;
    expect((await admin.get(`/api/services/${serviceId}`)).body.name).toBe('made-in-a-follower-region');
    // Read back where it was written: the follower answered once its standby had replayed the write.
    expect((await browser.get(`/api/services/${serviceId}`)).status).toBe(200);
    // The primary's refusals come back as they are.
    expect((await browser.post('/api/services', { name: 'made-in-a-follower-region' })).status).toBe(409);
    expect((await new ApiClient(follower.baseUrl).post('/api/services', { name: 'nobody' })).status).toBe(401);

    const key = (await browser.post(`/api/services/${serviceId}/apikeys`, { name: 'app' })).body.key as string;
    const registered = await grpcOf(follower).createVersion(
      {
        serviceId,
        version: '3.1.0',
        classes: [{ name: 'App', entries: [{ key: 'App:On', name: 'On', valueType: ValueType.BOOLEAN }] }],
      },
      withKey(key),
    );
    const atPrimary = await grpcOf(primary).isVersionExists({ serviceId, version: '3.1.0' }, withKey(key));
    expect(atPrimary.versionId).toBe(registered.versionId);
    const refused = await grpcOf(follower)
      .createVersion({ serviceId, version: '3.2.0', classes: [] }, withKey('rck_not-a-key'))
      .catch((error: grpc.ServiceError) => error);
    expect((refused as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);

    expect((await browser.post('/auth/logout')).status).toBe(204);
    expect((await browser.get('/auth/me')).status).toBe(401);
  });

  it('without Server:PrimaryUrl a follower refuses writes and sign-in (503 / UNAVAILABLE) and serves reads', async () => {
    const { serviceId, key } = await newService('regions-lone');
    const versionId = await registerVersion(
      grpcOf(primary),
      serviceId,
      '1.0.0',
      [{ key: 'A:X', value: 'x' }],
      withKey(key),
    );
    await replicated(lone, serviceId, '1.0.0', key);
    const bearer = { authorization: `Bearer ${key}` };
    const rest = lone.client();

    const signIn = await rest.post('/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    expect(signIn.status).toBe(503);
    expect(signIn.body.detail).toContain('Server:PrimaryUrl');
    const entry = (await entriesByKey(admin, serviceId, versionId))['A:X']!;
    const write = await rest.put(
      `/api/configentries/${serviceId}/${versionId}/set`,
      [{ id: entry.id, rawValue: 'y', generation: entry.generation }],
      { headers: bearer },
    );
    expect(write.status).toBe(503);
    expect(write.body.detail).toContain('read-only follower');
    const registration = await grpcOf(lone)
      .createVersion({ serviceId, version: '2.0.0', classes: [] }, withKey(key))
      .catch((error: grpc.ServiceError) => error);
    expect((registration as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    expect((registration as grpc.ServiceError).details).toContain('Server:PrimaryUrl');

    // Reads: a key, a session made at the primary; the console learns it is read-only.
    expect((await rest.get(`/api/configentries/${serviceId}/${versionId}`, { headers: bearer })).status).toBe(200);
    const snapshot = await grpcOf(lone).getConfig({ serviceId, version: '1.0.0' }, withKey(key));
    expect(snapshot.entries.map((e) => [e.key, e.value])).toEqual([['A:X', 'x']]);
    const session = { cookie: admin.sessionCookie as string };
    expect((await rest.get('/auth/me', { headers: session })).status).toBe(200);
    expect((await rest.get('/auth/instance')).body).toEqual({ role: 'follower', primaryUrl: null });
    expect((await follower.client().get('/auth/instance')).body).toEqual({
      role: 'follower',
      primaryUrl: primary.baseUrl,
    });
    expect((await admin.get('/auth/instance')).body).toEqual({ role: 'primary', primaryUrl: null });

    // Nothing reached the primary.
    expect((await entriesByKey(admin, serviceId, versionId))['A:X']).toMatchObject({ rawValue: 'x', generation: 1 });
    expect(
      (await grpcOf(primary).isVersionExists({ serviceId, version: '2.0.0' }, withKey(key))).versionId,
    ).toBeFalsy();
  });

  it("lists a follower's streams at that follower only, beside the primary's; writes no presence there", async () => {
    const { serviceId, key } = await newService('regions-presence');
    const versionId = await registerVersion(grpcOf(primary), serviceId, '1.0.0', [{ key: 'A:X' }], withKey(key));
    await replicated(follower, serviceId, '1.0.0', key);
    const instances = (server: TestServer) =>
      new ApiClient(server.baseUrl).get(`/api/configversions/${serviceId}/${versionId}/instances`, {
        headers: { cookie: admin.sessionCookie as string },
      });
    grpcOf(primary).subscribe({ serviceId, versionId }, withKey(key));
    grpcOf(follower).subscribe({ serviceId, versionId }, withKey(key));
    grpcOf(follower).subscribe({ serviceId, versionId }, withKey(key));
    await until(
      async () => (await instances(follower)).body.total === 3,
      "the primary's stream and its own at the follower",
    );
    const atPrimary = await instances(primary);
    expect(atPrimary.body.total).toBe(1);
    const servers = new Set(
      (await instances(follower)).body.instances.map((i: { serverInstance: string }) => i.serverInstance),
    );
    expect(servers.size).toBe(2);
    await sleep(2500); // a presence refresh later, still nothing of the follower's at the primary
    expect((await instances(primary)).body.total).toBe(1);
  });

  it('reports the delay of a lagging standby in /metrics and /readyz', async () => {
    const { serviceId, key } = await newService('regions-lag');
    const versionId = await registerVersion(grpcOf(primary), serviceId, '1.0.0', [{ key: 'A:X' }], withKey(key));
    await replicated(lone, serviceId, '1.0.0', key);
    const stream = grpcOf(lone).subscribe({ serviceId, versionId }, withKey(key));
    await stream.until((s) => s.events.length === 1);
    const rest = lone.client();
    expect(await readMetric(rest, 'realtime_follower')).toBe(1);
    expect(await readMetric(admin, 'realtime_follower')).toBe(0);
    expect((await rest.get('/readyz')).status).toBe(200);

    await standbyDb.setReplayPaused(true);
    try {
      const entries = await entriesByKey(admin, serviceId, versionId);
      await setValue(admin, serviceId, versionId, entries['A:X']!, 'late');
      await until(async () => (await readMetric(rest, 'realtime_follower_lag_seconds')) >= 1, 'a delay of 1 s');
      const ready = await rest.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.detail).toContain('Database:MaxFollowerLagSeconds');
      expect((await follower.client().get('/readyz')).status).toBe(200); // its limit is 30 s
      expect(stream.configEvents.some((e) => e.value === 'late')).toBe(false);
    } finally {
      await standbyDb.setReplayPaused(false);
    }
    await stream.until((s) => s.configEvents.some((e) => e.value === 'late'));
    await until(async () => (await readMetric(rest, 'realtime_follower_lag_seconds')) === 0, 'no delay');
    expect((await rest.get('/readyz')).status).toBe(200);
  });

  describe('when the primary region fails', () => {
    let serviceId: string;
    let key: string;
    let versionId: string;
    let stream: Subscription;
    let receiver: WebhookReceiver | undefined;
    afterAll(() => receiver?.close());

    it('the follower keeps serving GetConfig and its streams while the primary is stopped', async () => {
      ({ serviceId, key } = await newService('regions-failover'));
      versionId = await registerVersion(
        grpcOf(primary),
        serviceId,
        '1.0.0',
        [{ key: 'A:X', value: 'before' }],
        withKey(key),
      );
      await replicated(lone, serviceId, '1.0.0', key);
      receiver = await startWebhookReceiver();
      const hook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: receiver.url });
      expect(hook.status).toBe(201);
      stream = grpcOf(lone).subscribe({ serviceId, versionId }, withKey(key));
      await stream.until((s) => s.events.length === 1);
      const forwarding = grpcOf(follower).subscribe({ serviceId, versionId }, withKey(key));
      await forwarding.until((s) => s.events.length === 1);

      await primaryDb.stop();
      await sleep(3 * 1000); // several role checks and polls without a primary
      for (const server of [lone, follower]) {
        const snapshot = await grpcOf(server).getConfig({ serviceId, version: '1.0.0' }, withKey(key));
        expect(snapshot.entries.map((e) => e.value)).toEqual(['before']);
        expect((await server.client().get('/readyz')).status).toBe(200);
      }
      expect(stream.status).toBeUndefined();
      expect(forwarding.status).toBeUndefined();
      // The primary's instance answers, without its database: its 503 is the answer.
      const write = await follower
        .client()
        .post('/api/services', { name: 'during-the-outage' }, { headers: { cookie: admin.sessionCookie as string } });
      expect(write.status).toBe(503);
    });

    it('a promoted standby makes its followers primaries without a restart, within 5 s', async () => {
      const session = { cookie: admin.sessionCookie as string };
      await standbyDb.promote();
      let created: { status: number; body: { id?: string } } = { status: 0, body: {} };
      await until(
        async () => {
          created = await lone.client().post('/api/services', { name: 'after-failover' }, { headers: session });
          return created.status === 201;
        },
        'a write accepted by the promoted follower',
        5000,
      );
      expect(await readMetric(lone.client(), 'realtime_follower')).toBe(0);

      // LISTEN/NOTIFY now: a change through the other instance reaches the stream opened before.
      await until(async () => (await readMetric(follower.client(), 'realtime_follower')) === 0, 'the other instance');
      const rest = follower.client();
      const listed = await rest.get(`/api/configentries/${serviceId}/${versionId}`, { headers: session });
      expect(listed.status).toBe(200);
      const entry = (listed.body as Array<{ id: string; generation: number }>)[0]!;
      const set = await rest.put(
        `/api/configentries/${serviceId}/${versionId}/set`,
        [{ id: entry.id, rawValue: 'after', generation: entry.generation }],
        { headers: session },
      );
      expect(set.status).toBe(200);
      await stream.until((s) => s.configEvents.some((e) => e.value === 'after'));
      expect(stream.status).toBeUndefined();
      // The webhook dispatcher claims deliveries now: the change is sent.
      await receiver?.waitFor(1);
      expect(receiver?.received[0]?.body).toContain('"after"');
      // Presence is written again: the promoted instances list each other's streams.
      await until(
        async () =>
          (await rest.get(`/api/configversions/${serviceId}/${versionId}/instances`, { headers: session })).body
            .total === 2,
        'the streams of both instances listed',
      );
    });
  });
});
