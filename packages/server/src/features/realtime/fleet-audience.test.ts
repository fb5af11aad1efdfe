import type http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { SERVICE_PATH, StartSubscribeRequestSchema, timestampFromMicros, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { frameOf, openRawStream, rawSession, type RawStream } from '@realtime-config/test-support/raw-grpc';
import { entriesByKey, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { isoToMicros } from '../../platform/clock.js';
import { MAX_LISTED_INSTANCES } from './fleet-queries.js';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

/**
 * The instances list (docs/rest-api.md, Instances): each stream is measured against the newest change
 * it may receive, so a stream without the secrets scope is not behind after a secret changed; and
 * however many streams a version has, the answer lists a bounded number while its counts cover all.
 */

interface Instances {
  instances: Array<{ instanceId: string | null; lastEventTimestamp: string | null; upToDate: boolean }>;
  latestTimestamp: string | null;
  total: number;
  upToDate: number;
}

async function instancesUntil(
  admin: ApiClient,
  url: string,
  predicate: (answer: Instances) => boolean,
  timeoutMs = 10_000,
): Promise<Instances> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await admin.get<Instances>(url);
    expect(res.status).toBe(200);
    if (predicate(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`condition not met; last answer: ${res.text.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const metadataOf = (pairs: Record<string, string>): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(pairs)) metadata.set(key, value);
  return metadata;
};

describe.each(databaseKinds)('instances measured by what each may receive (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  let url: string;
  let readKey: string;
  let secretsKey: string;
  const open: Subscription[] = [];
  const sessions: http2.ClientHttp2Session[] = [];

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({ kind, args: [`--Secrets:MasterKeyFile=${keyFile}`] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'fleet-audience' })).body.id;
    const key = async (scopes: string[]) =>
      (await admin.post(`/api/services/${serviceId}/apikeys`, { name: scopes.join('+'), scopes })).body.key as string;
    readKey = await key(['read', 'register']);
    secretsKey = await key(['read', 'secrets']);
    ({ versionId } = await grpcClient.createVersion(
      {
        serviceId,
        version: '1.0.0',
        classes: [
          {
            name: 'Options',
            entries: [
              { key: 'Greeting', name: 'Greeting', valueType: ValueType.STRING, value: 'hello' },
              { key: 'Token', name: 'Token', valueType: ValueType.STRING, value: 'first', isSecret: true },
            ],
          },
        ],
      },
      metadataOf({ authorization: `Bearer ${readKey}` }),
    ));
    url = `/api/configversions/${serviceId}/${versionId}/instances`;
  });
  afterAll(async () => {
    for (const s of open) s.cancel();
    for (const s of sessions) s.destroy();
    grpcClient?.close();
    await server?.close();
  });

  const subscribe = (id: string, key: string, timestamp?: number): Subscription => {
    const sub = grpcClient.subscribe(
      { serviceId, versionId, ...(timestamp !== undefined ? { timestamp: timestampFromMicros(timestamp) } : {}) },
      metadataOf({ authorization: `Bearer ${key}`, 'x-rc-instance-id': id }),
    );
    open.push(sub);
    return sub;
  };
  const stateOf = (answer: Instances) =>
    Object.fromEntries(answer.instances.map((i) => [i.instanceId, i.upToDate] as const));

  it('counts a stream without the secrets scope up to date after a secret changed, and one with it once it has the change', async () => {
    const withoutSecrets = subscribe('without-secrets', readKey);
    const withSecrets = subscribe('with-secrets', secretsKey);
    await withoutSecrets.until((s) => s.events.length > 0);
    await withSecrets.until((s) => s.events.length > 0);
    const before = await instancesUntil(admin, url, (a) => a.total === 2);
    expect(before.upToDate).toBe(2);

    const token = (await entriesByKey(admin, serviceId, versionId)).Token!;
    await setValue(admin, serviceId, versionId, token, 'second');
    await withSecrets.until((s) => s.configEvents.some((e) => e.value === 'second'));
    const after = await instancesUntil(admin, url, (a) => a.latestTimestamp !== before.latestTimestamp);
    expect(withoutSecrets.events).toHaveLength(1); // it was sent nothing of the secret's change ...
    expect(stateOf(after)).toEqual({ 'without-secrets': true, 'with-secrets': true }); // ... and misses nothing
    expect(after.upToDate).toBe(2);
    const sentToPublic = after.instances.find((i) => i.instanceId === 'without-secrets')?.lastEventTimestamp;
    expect(sentToPublic).toBe(before.latestTimestamp);

    // A stream without secrets that resumes from before the secret's change is sent nothing, and is up to date.
    const resumed = subscribe('resumed', readKey, isoToMicros(before.latestTimestamp!)!);
    const three = await instancesUntil(admin, url, (a) => a.total === 3);
    expect(stateOf(three)).toEqual({ 'without-secrets': true, 'with-secrets': true, resumed: true });
    expect(resumed.events).toHaveLength(0);

    // A change of an entry that is not secret is one every stream must have.
    const greeting = (await entriesByKey(admin, serviceId, versionId)).Greeting!;
    await setValue(admin, serviceId, versionId, greeting, 'hi');
    for (const s of [withoutSecrets, withSecrets, resumed]) {
      await s.until((x) => x.configEvents.some((e) => e.value === 'hi'));
    }
    const last = await instancesUntil(
      admin,
      url,
      (a) => a.upToDate === 3 && a.latestTimestamp !== after.latestTimestamp,
    );
    expect(last.instances.every((i) => i.lastEventTimestamp === last.latestTimestamp)).toBe(true);
    for (const s of open.splice(0)) s.cancel();
    await instancesUntil(admin, url, (a) => a.total === 0);
  });

  it(`lists at most the ${MAX_LISTED_INSTANCES} oldest streams, while total and upToDate count every one`, async () => {
    const sdk = subscribe('oldest', readKey);
    await sdk.until((s) => s.events.length > 0);
    const count = MAX_LISTED_INSTANCES + 20;
    const request = frameOf(
      toBinary(StartSubscribeRequestSchema, create(StartSubscribeRequestSchema, { serviceId, versionId })),
    );
    // Server:MaxStreamsPerConnection is 100 by default: spread over connections.
    const streams: RawStream[] = [];
    for (let opened = 0; opened < count; opened += 100) {
      const session = rawSession(server.baseUrl);
      sessions.push(session);
      for (let i = opened; i < Math.min(count, opened + 100); i++) {
        streams.push(openRawStream(session, `${SERVICE_PATH}/StartSubscribe`, request));
      }
    }
    const outcomes = await Promise.all(streams.map((s) => s.outcome));
    expect(outcomes.filter((o) => o.open)).toHaveLength(count);

    const answer = await instancesUntil(admin, url, (a) => a.total === count + 1);
    expect(answer.instances).toHaveLength(MAX_LISTED_INSTANCES);
    expect(answer.instances[0]?.instanceId).toBe('oldest');
    expect(answer.upToDate).toBe(count + 1);
    for (const s of streams) s.close();
    sdk.cancel();
    await instancesUntil(admin, url, (a) => a.total === 0);
  });
});
