import * as grpc from '@grpc/grpc-js';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { CONSOLE_SDK, RealtimeConfigGrpcService, timestampFromMicros } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { entriesByKey, readMetric, registerVersion, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { isoToMicros } from '../../platform/clock.js';

/** Who is connected (docs/rest-api.md, Instances): the open streams of a version and what they were sent. */

const MISSING = '00000000-0000-4000-8000-000000000000';

interface Instance {
  instanceId: string | null;
  sdk: string | null;
  userAgent: string | null;
  address: string | null;
  labels: Record<string, string>;
  serverInstance: string;
  connectedAt: string;
  lastEventTimestamp: string | null;
  upToDate: boolean;
}
interface Instances {
  instances: Instance[];
  latestTimestamp: string | null;
  total: number;
  upToDate: number;
}

const metadataOf = (pairs: Record<string, string>): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(pairs)) metadata.set(key, value);
  return metadata;
};

/** Polls until the predicate holds for the answer; the list follows streams within a few seconds. */
async function instancesUntil(
  admin: ApiClient,
  path: string,
  predicate: (answer: Instances) => boolean,
  timeoutMs = 10_000,
): Promise<Instances> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await admin.get<Instances>(path);
    expect(res.status).toBe(200);
    if (predicate(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`condition not met; last answer: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(databaseKinds)('instances of a version (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  let path: string;
  const open: Subscription[] = [];

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'fleet' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [{ key: 'Greeting', value: 'hello' }]);
    path = `/api/configversions/${serviceId}/${versionId}/instances`;
  });
  afterAll(async () => {
    for (const s of open) s.cancel();
    grpcClient?.close();
    await server?.close();
  });

  const subscribe = (metadata?: grpc.Metadata): Subscription => {
    const sub = grpcClient.subscribe({ serviceId, versionId }, metadata);
    open.push(sub);
    return sub;
  };

  it('lists each open stream with what its client sent, and whether it has the latest change', async () => {
    const before = await admin.get<Instances>(path);
    expect(before.body).toMatchObject({ instances: [], total: 0, upToDate: 0 });
    expect(before.body.latestTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const labelled = subscribe(
      metadataOf({
        'x-rc-instance-id': 'checkout-7f9c',
        'x-rc-sdk': '@realtime-config/client/1.2.3',
        'x-rc-labels': 'region=eu-west-1,team=pay%2Cments,expr=a%3Db%25',
      }),
    );
    const plain = subscribe();
    await labelled.until((s) => s.events.length > 0);
    await plain.until((s) => s.events.length > 0);

    const answer = await instancesUntil(admin, path, (a) => a.total === 2);
    expect(answer.upToDate).toBe(2);
    const withId = answer.instances.find((i) => i.instanceId === 'checkout-7f9c');
    const without = answer.instances.find((i) => i.instanceId === null);
    expect(withId).toMatchObject({
      sdk: '@realtime-config/client/1.2.3',
      labels: { region: 'eu-west-1', team: 'pay,ments', expr: 'a=b%' },
      address: '127.0.0.1',
      lastEventTimestamp: answer.latestTimestamp,
      upToDate: true,
    });
    expect(withId?.userAgent).toMatch(/^grpc-node-js\//);
    expect(withId?.serverInstance).toEqual(expect.any(String));
    expect(withId?.connectedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(without).toMatchObject({ sdk: null, labels: {}, upToDate: true });

    expect(
      await readMetric(admin, 'realtime_connected_instances', `service="${serviceId}",version="${versionId}"`),
    ).toBe(2);

    // A change reaches both: their last event follows the version's newest change.
    const entry = (await entriesByKey(admin, serviceId, versionId)).Greeting!;
    await setValue(admin, serviceId, versionId, entry, 'hi');
    await labelled.until((s) => s.events.length > 1);
    await plain.until((s) => s.events.length > 1);
    const after = await instancesUntil(admin, path, (a) => a.latestTimestamp !== answer.latestTimestamp);
    expect(after.upToDate).toBe(2);
    expect(after.instances.map((i) => i.lastEventTimestamp)).toEqual([after.latestTimestamp, after.latestTimestamp]);

    // Closing a stream removes it, and the gauge's series goes with the last one.
    labelled.cancel();
    const one = await instancesUntil(admin, path, (a) => a.total === 1);
    expect(one.instances[0]?.instanceId).toBeNull();
    plain.cancel();
    await instancesUntil(admin, path, (a) => a.total === 0);
    const metrics = (await admin.get<string>('/metrics')).text;
    expect(metrics).not.toContain(`realtime_connected_instances{service="${serviceId}",version="${versionId}"}`);
  });

  it('counts a stream resumed from the newest change as up to date, with nothing sent on it yet', async () => {
    const latest = isoToMicros((await admin.get<Instances>(path)).body.latestTimestamp!)!;
    const sub = grpcClient.subscribe(
      { serviceId, versionId, timestamp: timestampFromMicros(latest) },
      metadataOf({ 'x-rc-instance-id': 'caught-up' }),
    );
    open.push(sub);
    const answer = await instancesUntil(admin, path, (a) => a.total === 1);
    expect(answer.instances[0]).toMatchObject({ instanceId: 'caught-up', lastEventTimestamp: null, upToDate: true });
    expect(answer.upToDate).toBe(1);
    // A version update (here its protection) is sent to no stream: it leaves every stream up to date.
    for (const isProtected of [true, false]) {
      const put = await admin.put(`/api/configversions/${serviceId}/${versionId}`, {
        versionLabel: '1.0.0',
        protected: isProtected,
      });
      expect(put.status, put.text).toBe(200);
    }
    const afterUpdate = (await admin.get<Instances>(path)).body;
    expect(afterUpdate.latestTimestamp).toBe(answer.latestTimestamp);
    expect(afterUpdate.upToDate).toBe(1);
    sub.cancel();
    await instancesUntil(admin, path, (a) => a.total === 0);
  });

  it('shows streams of the Connect protocol too', async () => {
    const client = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    const stream = new ConnectStream((signal) =>
      client.startSubscribe(
        { serviceId, versionId },
        { signal, headers: { 'x-rc-instance-id': 'web-1', 'x-rc-labels': 'zone=b' } },
      ),
    );
    await stream.until((s) => s.messages.length > 0);
    const answer = await instancesUntil(admin, path, (a) => a.total === 1);
    expect(answer.instances[0]).toMatchObject({ instanceId: 'web-1', labels: { zone: 'b' }, address: '127.0.0.1' });
    await stream.cancel();
    await instancesUntil(admin, path, (a) => a.total === 0);
  });

  it("leaves the web console's own stream out: a person looking is no instance of the application", async () => {
    const consoleTab = subscribe(metadataOf({ 'x-rc-sdk': CONSOLE_SDK }));
    const app = subscribe(metadataOf({ 'x-rc-instance-id': 'app-1' }));
    await consoleTab.until((s) => s.events.length > 0);
    await app.until((s) => s.events.length > 0);
    const answer = await instancesUntil(admin, path, (a) => a.total > 0);
    expect(answer).toMatchObject({ total: 1, upToDate: 1 });
    expect(answer.instances.map((i) => i.instanceId)).toEqual(['app-1']);
    expect(
      await readMetric(admin, 'realtime_connected_instances', `service="${serviceId}",version="${versionId}"`),
    ).toBe(1);
    // The console's stream still gets every change.
    const entry = (await entriesByKey(admin, serviceId, versionId)).Greeting!;
    const seen = consoleTab.events.length;
    await setValue(admin, serviceId, versionId, entry, 'console sees this');
    await consoleTab.until((s) => s.events.length > seen);
    consoleTab.cancel();
    app.cancel();
    await instancesUntil(admin, path, (a) => a.total === 0);
  });

  it('refuses malformed metadata with INVALID_ARGUMENT and lists nothing', async () => {
    const bad = subscribe(metadataOf({ 'x-rc-labels': 'no-equals-sign' }));
    await bad.until((s) => s.status !== undefined);
    expect(bad.status?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.status?.details).toContain('x-rc-labels');
    const badEncoding = subscribe(metadataOf({ 'x-rc-labels': 'k=%E0%A4%A' }));
    await badEncoding.until((s) => s.status !== undefined);
    expect(badEncoding.status?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await admin.get<Instances>(path)).body.total).toBe(0);
  });

  it('answers 404 for a version that does not exist, 401 without a session', async () => {
    expect((await admin.get(`/api/configversions/${serviceId}/${MISSING}/instances`)).status).toBe(404);
    expect((await server.client().get(path)).status).toBe(401);
  });
});
