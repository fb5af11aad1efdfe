import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase, postgresUrl, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * Who is connected, across server instances on one PostgreSQL database: each lists the streams of
 * the others through the presence table, and the streams of an instance that died expire.
 */

interface Instances {
  instances: Array<{ instanceId: string | null; serverInstance: string; upToDate: boolean }>;
  total: number;
}

async function instancesUntil(
  client: ApiClient,
  path: string,
  predicate: (answer: Instances) => boolean,
  timeoutMs: number,
): Promise<Instances> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.get<Instances>(path);
    expect(res.status).toBe(200);
    if (predicate(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last answer: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const withInstanceId = (id: string): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  metadata.set('x-rc-instance-id', id);
  return metadata;
};

describe.skipIf(!postgresUrl)('instances across server instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: ServerProcess;
  let b: TestServer;
  let adminB: ApiClient;
  let grpcA: GrpcTestClient;
  let grpcB: GrpcTestClient;
  let path: string;
  let serviceId: string;
  let versionId: string;
  const open: Subscription[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    b = await startTestServer({ database });
    a = await startServerProcess({
      args: serverProcessArgs(await findFreePort(), database.args),
      startTimeoutMs: 60_000,
    });
    adminB = await b.admin();
    grpcA = new GrpcTestClient(`127.0.0.1:${a.port}`);
    grpcB = new GrpcTestClient(`127.0.0.1:${b.port}`);
    serviceId = (await adminB.post('/api/services', { name: 'fleet-instances' })).body.id;
    versionId = await registerVersion(grpcB, serviceId, '1.0.0', [{ key: 'Greeting', value: 'hello' }]);
    path = `/api/configversions/${serviceId}/${versionId}/instances`;
  }, 90_000);
  afterAll(async () => {
    for (const s of open) s.cancel();
    grpcA?.close();
    grpcB?.close();
    await killServerProcesses();
    await b?.close();
    await database?.drop();
  });

  const subscribe = (client: GrpcTestClient, id: string): Subscription => {
    const sub = client.subscribe({ serviceId, versionId }, withInstanceId(id));
    open.push(sub);
    return sub;
  };

  it('lists a stream of another instance, drops it when it closes, and expires those of an instance that died', async () => {
    const onB = subscribe(grpcB, 'on-b');
    const onA = subscribe(grpcA, 'on-a');
    const closing = subscribe(grpcA, 'closing-on-a');
    await Promise.all([onA, onB, closing].map((s) => s.until((x) => x.events.length > 0)));

    // Within the refresh period B sees A's streams beside its own, each with its server instance.
    const all = await instancesUntil(adminB, path, (x) => x.total === 3, 10_000);
    const serverOf = (id: string) => all.instances.find((i) => i.instanceId === id)?.serverInstance;
    expect(serverOf('on-a')).toBe(serverOf('closing-on-a'));
    expect(serverOf('on-a')).not.toBe(serverOf('on-b'));
    expect(all.instances.every((i) => i.upToDate)).toBe(true);

    // A stream that closes on A leaves B's list.
    closing.cancel();
    await instancesUntil(
      adminB,
      path,
      (x) => x.total === 2 && !x.instances.some((i) => i.instanceId === 'closing-on-a'),
      10_000,
    );

    // A dies without a word: its rows stay in the table, and expire by their heartbeat's age.
    await a.kill();
    const left = await instancesUntil(adminB, path, (x) => x.total === 1, 40_000);
    expect(left.instances[0]?.instanceId).toBe('on-b');
  }, 90_000);
});
