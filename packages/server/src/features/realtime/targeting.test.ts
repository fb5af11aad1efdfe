import * as grpc from '@grpc/grpc-js';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import {
  entriesByKey,
  registerVersion,
  rowOf,
  setValue,
  type RestEntry,
} from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

/** Overrides by label on GetConfig and the streams (docs/targeting.md), with raw gRPC clients. */

const metadataOf = (labels: string | null, instanceId?: string): grpc.Metadata => {
  const metadata = new grpc.Metadata();
  if (labels !== null) metadata.set('x-rc-labels', labels);
  if (instanceId) metadata.set('x-rc-instance-id', instanceId);
  return metadata;
};

/** The instances of the test: their labels and the Timeout values they must receive, in order. */
const INSTANCES = {
  eu: 'region=eu',
  us: 'region=us',
  euGold: 'tier=gold,region=eu',
  gold: 'tier=gold',
  none: null,
} as const;
type Name = keyof typeof INSTANCES;

describe.each(databaseKinds)('overrides on GetConfig and the streams (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  let timeout: RestEntry;
  const streams = new Map<Name, Subscription>();

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({ kind, args: [`--Secrets:MasterKeyFile=${keyFile}`] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'targeting' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [
      { key: 'Timeout', valueType: ValueType.NUMBER, value: '30' },
      { key: 'Greeting', value: 'hello' },
    ]);
    timeout = (await entriesByKey(admin, serviceId, versionId)).Timeout as RestEntry;
  });
  afterAll(async () => {
    for (const s of streams.values()) s.cancel();
    grpcClient?.close();
    await server?.close();
  });

  const setOverrides = async (overrides: Array<{ labels: Record<string, string>; rawValue: string | null }>) => {
    const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/${timeout.id}/overrides`, {
      overrides,
      generation: timeout.generation,
    });
    expect(res.status, res.text).toBe(200);
    timeout.generation = res.body.generation;
  };
  const timeoutOf = (rows: Array<{ key: string; value: string | null; generation: number }>) =>
    rows.filter((r) => r.key === 'Timeout').map((r) => [r.value, r.generation]);
  const received = (name: Name) => timeoutOf((streams.get(name) as Subscription).configEvents.map(rowOf));
  const untilEach = (predicate: (name: Name) => boolean) =>
    Promise.all([...streams].map(([name, stream]) => stream.until(() => predicate(name))));

  it('answers GetConfig with the first override an instance matches, else the value', async () => {
    await setOverrides([
      { labels: { region: 'eu' }, rawValue: '45' },
      { labels: { tier: 'gold' }, rawValue: '60' },
    ]);
    const expected: Record<Name, string> = { eu: '45', us: '30', euGold: '45', gold: '60', none: '30' };
    for (const [name, labels] of Object.entries(INSTANCES) as Array<[Name, string | null]>) {
      const answer = await grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf(labels, `i-${name}`));
      expect(timeoutOf(answer.entries.map(rowOf)), name).toEqual([[expected[name], timeout.generation]]);
      expect(answer.entries.find((e) => e.key === 'Greeting')?.value).toBe('hello');
    }
    // The same through Connect-ES (HTTP/1.1), the other gRPC path.
    const connect = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    const viaConnect = await connect.getConfig(
      { serviceId, version: '1.0.0' },
      { headers: { 'x-rc-labels': 'tier=gold' } },
    );
    expect(timeoutOf(viaConnect.entries.map(rowOf))).toEqual([['60', timeout.generation]]);
    const plain = await connect.getConfig({ serviceId, version: '1.0.0' });
    expect(timeoutOf(plain.entries.map(rowOf))).toEqual([['30', timeout.generation]]);
  });

  it("streams each instance its own value: never another label's, generations only increasing", async () => {
    const first = timeout.generation;
    for (const [name, labels] of Object.entries(INSTANCES) as Array<[Name, string | null]>) {
      streams.set(name, grpcClient.subscribe({ serviceId, versionId }, metadataOf(labels, `i-${name}`)));
    }
    await untilEach((name) => received(name).length === 1);
    const backfill: Record<Name, string> = { eu: '45', us: '30', euGold: '45', gold: '60', none: '30' };
    for (const name of streams.keys()) expect(received(name), name).toEqual([[backfill[name], first]]);

    // A new value: instances with an override keep theirs, with the entry's new generation.
    await setValue(admin, serviceId, versionId, timeout, '31');
    const second = timeout.generation;
    // The overrides change: eu loses its override, us gains one.
    await setOverrides([
      { labels: { region: 'us' }, rawValue: '99' },
      { labels: { tier: 'gold' }, rawValue: '60' },
    ]);
    const third = timeout.generation;
    await untilEach((name) => received(name).at(-1)?.[1] === third);

    const expected: Record<Name, Array<[string, number]>> = {
      eu: [
        ['45', first],
        ['45', second],
        ['31', third],
      ],
      us: [
        ['30', first],
        ['31', second],
        ['99', third],
      ],
      euGold: [
        ['45', first],
        ['45', second],
        ['60', third],
      ],
      gold: [
        ['60', first],
        ['60', second],
        ['60', third],
      ],
      none: [
        ['30', first],
        ['31', second],
        ['31', third],
      ],
    };
    for (const name of streams.keys()) expect(received(name), name).toEqual(expected[name]);
    expect(first).toBeLessThan(second);
    expect(second).toBeLessThan(third);
  });

  it('resumes a stream with the values resolved for its instance', async () => {
    const resumed = grpcClient.subscribe({ serviceId, versionId, timestamp: undefined }, metadataOf('region=us'));
    try {
      await resumed.until((s) => s.configEvents.some((e) => e.key === 'Timeout'));
      expect(timeoutOf(resumed.configEvents.map(rowOf))).toEqual([['99', timeout.generation]]);
    } finally {
      resumed.cancel();
    }
  });

  it("sends a secret's override only to streams that receive secrets, resolved for their labels", async () => {
    const plain = `secret-override-${Date.now()}`;
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Api:Key',
      valueType: ValueType.STRING,
      rawValue: 'the-value',
      isSecret: true,
    });
    expect(created.status, created.text).toBe(201);
    const apiKey = (
      await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'secrets', scopes: ['read', 'secrets'] })
    ).body.key as string;
    const withKey = (labels: string) => {
      const metadata = metadataOf(labels);
      metadata.set('authorization', `Bearer ${apiKey}`);
      return metadata;
    };
    const publicEu = grpcClient.subscribe({ serviceId, versionId }, metadataOf('region=eu'));
    const secretsEu = grpcClient.subscribe({ serviceId, versionId }, withKey('region=eu'));
    const secretsUs = grpcClient.subscribe({ serviceId, versionId }, withKey('region=us'));
    const all = [publicEu, secretsEu, secretsUs];
    try {
      await Promise.all(all.map((s) => s.until(() => s.configEvents.some((e) => e.key === 'Timeout'))));
      const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/${created.body.id}/overrides`, {
        overrides: [{ labels: { region: 'eu' }, rawValue: plain }],
        generation: created.body.generation,
      });
      expect(res.status, res.text).toBe(200);
      // A later change every stream receives: after it, nothing of the override can still be on its way.
      await setValue(admin, serviceId, versionId, timeout, '32');
      const last = timeout.generation;
      await Promise.all(
        all.map((s) => s.until(() => s.configEvents.some((e) => e.key === 'Timeout' && e.generation === last))),
      );
      const apiKeys = (s: Subscription) => s.configEvents.filter((e) => e.key === 'Api:Key').map((e) => e.value);
      expect(apiKeys(publicEu)).toEqual([]);
      expect(publicEu.configEvents.map((e) => e.value)).not.toContain(plain);
      expect(apiKeys(secretsEu).at(-1)).toBe(plain);
      expect(apiKeys(secretsUs).at(-1)).toBe('the-value');
      expect(apiKeys(secretsUs)).not.toContain(plain);
      const answer = await grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf('region=eu'));
      expect(answer.entries.map((e) => e.key)).not.toContain('Api:Key');
    } finally {
      for (const s of all) s.cancel();
    }
  });
});
