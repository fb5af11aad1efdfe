import { mkdtempSync } from 'node:fs';
import type http2 from 'node:http2';
import { tmpdir } from 'node:os';
import nodePath from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { SERVICE_PATH, StartSubscribeRequestSchema, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { frameOf, openRawStream, rawSession, type RawStream } from '@realtime-config/test-support/raw-grpc';
import { entriesByKey, registerVersion, setValue } from '@realtime-config/test-support/realtime-fixtures';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase, postgresUrl, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { createMasterKeyFile } from '../../platform/envelope-cipher.js';
import { MAX_LISTED_INSTANCES } from './fleet-queries.js';

/**
 * Who is connected, across server instances on one PostgreSQL database: each lists the streams of
 * the others through the presence table, and the streams of an instance that died expire.
 */

interface Instances {
  instances: Array<{ instanceId: string | null; serverInstance: string; upToDate: boolean }>;
  latestTimestamp: string | null;
  total: number;
  upToDate: number;
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

const withInstanceId = (id: string, authorization?: string): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  metadata.set('x-rc-instance-id', id);
  if (authorization) metadata.set('authorization', authorization);
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
  const sessions: http2.ClientHttp2Session[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One master key for both instances: the secret entry of the last test needs it.
    const keyFile = nodePath.join(mkdtempSync(nodePath.join(tmpdir(), 'rc-key-')), 'master.key');
    createMasterKeyFile(keyFile);
    const secrets = `--Secrets:MasterKeyFile=${keyFile}`;
    b = await startTestServer({ database, args: [secrets] });
    a = await startServerProcess({
      args: serverProcessArgs(await findFreePort(), [...database.args, secrets]),
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
    for (const s of sessions) s.destroy();
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

  it('counts the streams of another instance by what each may receive, and lists the oldest of them only', async () => {
    const key = (await adminB.post(`/api/services/${serviceId}/apikeys`, { name: 'sdk', scopes: ['read'] })).body.key;
    const { versionId: withSecret } = await grpcB.createVersion(
      {
        serviceId,
        version: '2.0.0',
        classes: [
          {
            name: 'Options',
            entries: [{ key: 'Token', name: 'Token', valueType: ValueType.STRING, value: 'one', isSecret: true }],
          },
        ],
      },
      withInstanceId('registrar'),
    );
    const url = `/api/configversions/${serviceId}/${withSecret}/instances`;
    // A stream without the secrets scope on A, and more streams than the list shows (Server:
    // MaxStreamsPerConnection is 100 by default: spread over connections).
    const sdk = grpcA.subscribe({ serviceId, versionId: withSecret }, withInstanceId('sdk-on-a', `Bearer ${key}`));
    open.push(sdk);
    const request = frameOf(
      toBinary(StartSubscribeRequestSchema, create(StartSubscribeRequestSchema, { serviceId, versionId: withSecret })),
    );
    const count = MAX_LISTED_INSTANCES + 10;
    const streams: RawStream[] = [];
    for (let opened = 0; opened < count; opened += 100) {
      const session = rawSession(`http://127.0.0.1:${a.port}`);
      sessions.push(session);
      for (let i = opened; i < Math.min(count, opened + 100); i++) {
        streams.push(openRawStream(session, `${SERVICE_PATH}/StartSubscribe`, request));
      }
    }
    expect((await Promise.all(streams.map((s) => s.outcome))).filter((o) => o.open)).toHaveLength(count);
    const before = await instancesUntil(adminB, url, (x) => x.total === count + 1, 10_000);
    expect(before.instances).toHaveLength(MAX_LISTED_INSTANCES);
    expect(before.upToDate).toBe(count + 1);

    // The secret changes: none of A's streams may receive it, so none is behind.
    const token = (await entriesByKey(adminB, serviceId, withSecret)).Token!;
    await setValue(adminB, serviceId, withSecret, token, 'two');
    const after = await instancesUntil(adminB, url, (x) => x.latestTimestamp !== before.latestTimestamp, 10_000);
    expect(after.total).toBe(count + 1);
    expect(after.upToDate).toBe(count + 1);
    expect(after.instances.every((i) => i.upToDate)).toBe(true);
    for (const s of streams) s.close();
    sdk.cancel();
    await instancesUntil(adminB, url, (x) => x.total === 0, 10_000);
  }, 60_000);

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
