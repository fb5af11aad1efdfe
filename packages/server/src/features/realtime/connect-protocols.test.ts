import { equals, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from '@connectrpc/connect-node';
import {
  GetConfigResponseSchema,
  RealtimeConfigGrpcService,
  SubscriptionEventSchema,
  timestampFromMicros,
  ValueType,
  type SubscriptionEvent,
} from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import {
  entriesByKey,
  eventRows,
  readMetric,
  registerVersion,
  rowOf,
  setValue,
  type RestEntry,
} from '@realtime-config/test-support/realtime-fixtures';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';

interface Protocol {
  readonly name: string;
  /** Which server path serves its StartSubscribe and GetConfig calls (the grpc_calls_total label). */
  readonly subscribePath: 'native' | 'connect';
  transport(baseUrl: string, sessionManager: (baseUrl: string) => Http2SessionManager): Transport;
}

const protocols: readonly Protocol[] = [
  {
    name: 'Connect over HTTP/1.1',
    subscribePath: 'connect',
    transport: (baseUrl) => createConnectTransport({ httpVersion: '1.1', baseUrl }),
  },
  {
    name: 'Connect with JSON over HTTP/1.1',
    subscribePath: 'connect',
    transport: (baseUrl) => createConnectTransport({ httpVersion: '1.1', baseUrl, useBinaryFormat: false }),
  },
  {
    name: 'gRPC-Web over HTTP/1.1',
    subscribePath: 'connect',
    transport: (baseUrl) => createGrpcWebTransport({ httpVersion: '1.1', baseUrl }),
  },
  {
    name: 'Connect over HTTP/2',
    subscribePath: 'connect',
    transport: (baseUrl, sm) => createConnectTransport({ httpVersion: '2', baseUrl, sessionManager: sm(baseUrl) }),
  },
  {
    name: 'gRPC-Web over HTTP/2',
    subscribePath: 'connect',
    transport: (baseUrl, sm) => createGrpcWebTransport({ httpVersion: '2', baseUrl, sessionManager: sm(baseUrl) }),
  },
  {
    name: 'gRPC over HTTP/2 (Connect-ES client)',
    subscribePath: 'native',
    transport: (baseUrl, sm) => createGrpcTransport({ baseUrl, sessionManager: sm(baseUrl) }),
  },
];

const isConnectError = (code: Code) => (e: unknown) => e instanceof ConnectError && e.code === code;

describe('Connect-ES clients (Connect, gRPC-Web, gRPC) on the shared port', () => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  const sessionManagers: Http2SessionManager[] = [];
  const clients = new Map<string, Client<typeof RealtimeConfigGrpcService>>();
  const clientOf = (p: Protocol) => clients.get(p.name)!;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'connect-suite' })).body.id;
    const sessionManager = (baseUrl: string) => {
      const sm = new Http2SessionManager(baseUrl);
      sessionManagers.push(sm);
      return sm;
    };
    for (const p of protocols)
      clients.set(p.name, createClient(RealtimeConfigGrpcService, p.transport(server.baseUrl, sessionManager)));
  });
  afterAll(async () => {
    for (const sm of sessionManagers) sm.abort();
    grpcClient?.close();
    await server?.close();
  });

  describe('GetConfig', () => {
    beforeAll(async () => {
      await registerVersion(grpcClient, serviceId, 'snapshot', [
        { key: 'Empty', value: '' },
        { key: 'Json', valueType: ValueType.JSON, value: '{"a":[1,2],"b":"ü"}' },
        { key: 'Mode', valueType: ValueType.ENUM, value: 'fast', enumValues: 'fast|slow' },
        { key: 'Nothing' },
        { key: 'Number', valueType: ValueType.NUMBER, value: '-1.5e3' },
      ]);
    });

    it.each(protocols)('answers $name with the message grpc-js receives', async (p) => {
      const expected = await grpcClient.getConfig({ serviceId, version: 'snapshot' });
      expect(expected.entries.map((e) => [e.key, e.value, e.generation, e.type])).toEqual([
        ['Empty', '', 1, ValueType.STRING],
        ['Json', '{"a":[1,2],"b":"ü"}', 1, ValueType.JSON],
        ['Mode', 'fast', 1, ValueType.ENUM],
        ['Nothing', undefined, 1, ValueType.STRING],
        ['Number', '-1.5e3', 1, ValueType.NUMBER],
      ]);
      const servedBy = `method="GetConfig",path="${p.subscribePath}"`;
      const before = await readMetric(admin, 'grpc_calls_total', servedBy);
      const actual = await clientOf(p).getConfig({ serviceId, version: 'snapshot' });
      expect(actual.entries.map(rowOf)).toEqual(expected.entries.map(rowOf));
      expect(equals(GetConfigResponseSchema, actual, expected)).toBe(true);
      expect(Buffer.from(toBinary(GetConfigResponseSchema, actual))).toEqual(
        Buffer.from(toBinary(GetConfigResponseSchema, expected)),
      );
      // Native gRPC calls are served by the fast path (cached bytes), the others by Connect-ES.
      expect(await readMetric(admin, 'grpc_calls_total', servedBy)).toBe(before + 1);
    });

    it.each(protocols)(
      'answers $name OK with no entries for an unknown version, InvalidArgument for a malformed id',
      async (p) => {
        expect((await clientOf(p).getConfig({ serviceId, version: 'no-such-label' })).entries).toEqual([]);
        expect((await clientOf(p).getConfig({ serviceId: MISSING, version: 'snapshot' })).entries).toEqual([]);
        await expect(clientOf(p).getConfig({ serviceId: 'not-a-uuid', version: 'snapshot' })).rejects.toSatisfy(
          isConnectError(Code.InvalidArgument),
        );
        await expect(clientOf(p).isVersionExists({ serviceId: 'not-a-uuid', version: 'snapshot' })).rejects.toSatisfy(
          isConnectError(Code.InvalidArgument),
        );
      },
    );
  });

  describe('StartSubscribe', () => {
    let versionId: string;
    let entries: Record<string, RestEntry>;

    beforeAll(async () => {
      versionId = await registerVersion(grpcClient, serviceId, 'stream', [
        { key: 'A', value: '1' },
        { key: 'B', value: '' },
        { key: 'C' },
        { key: 'N', valueType: ValueType.NUMBER, value: '5' },
      ]);
      entries = await entriesByKey(admin, serviceId, versionId);
    });

    it('sends every protocol the same messages the native path sends grpc-js', async () => {
      const backfillSize = 4;
      const liveSize = 8; // the ConfigEvents the changes below produce
      const total = backfillSize + liveSize;
      const countEvents = (messages: readonly SubscriptionEvent[]) => messages.reduce((n, m) => n + m.events.length, 0);
      const metric = (path: string) => readMetric(admin, 'grpc_calls_total', `method="StartSubscribe",path="${path}"`);
      const [nativeBefore, connectBefore] = [await metric('native'), await metric('connect')];

      const native = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      const streams = protocols.map(
        (p) =>
          new ConnectStream(
            (signal) =>
              clientOf(p).startSubscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) }, { signal }),
            (messages) => countEvents(messages) >= total,
          ),
      );
      try {
        await native.until((s) => s.events.length >= 1);
        for (const s of streams) await s.until((x) => x.messages.length >= 1);
        expect(server.app.openStreams).toBe(protocols.length + 1);
        expect(await metric('native')).toBe(
          nativeBefore + 1 + protocols.filter((p) => p.subscribePath === 'native').length,
        );
        expect(await metric('connect')).toBe(
          connectBefore + protocols.filter((p) => p.subscribePath === 'connect').length,
        );

        await setValue(admin, serviceId, versionId, entries.A!, 'two');
        await setValue(admin, serviceId, versionId, entries.B!, null); // "" becomes null
        await setValue(admin, serviceId, versionId, entries.C!, ''); // null becomes ""
        const batch = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: entries.A!.id, rawValue: 'three', generation: entries.A!.generation },
          { id: entries.N!.id, rawValue: '6', generation: entries.N!.generation },
        ]);
        expect(batch.status).toBe(200);
        entries.A!.generation += 1;
        const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
          key: 'Later',
          valueType: ValueType.STRING,
          rawValue: 'x',
        });
        expect(created.status).toBe(201);
        expect((await admin.delete(`/api/configentries/${serviceId}/${versionId}/${entries.C!.id}`)).status).toBe(204);
        await setValue(admin, serviceId, versionId, entries.A!, 'ünïcødé ✓ "quoted"\n');

        await native.until((s) => s.configEvents.length >= total);
        for (const s of streams) await s.done;
      } finally {
        native.cancel();
        for (const s of streams) await s.cancel();
      }

      const live = native.configEvents.slice(backfillSize).map(rowOf);
      const summary = (rows: typeof live) => rows.map((e) => [e.key, e.value, e.generation]);
      expect(live).toHaveLength(liveSize);
      expect(summary(live.slice(0, 3))).toEqual([
        ['A', 'two', 2],
        ['B', null, 2],
        ['C', '', 2],
      ]);
      expect(summary(live.slice(3, 5).sort((a, b) => a.key.localeCompare(b.key)))).toEqual([
        ['A', 'three', 3],
        ['N', '6', 2],
      ]);
      expect(summary(live.slice(5))).toEqual([
        ['Later', 'x', 1],
        ['C', null, 3],
        ['A', 'ünïcødé ✓ "quoted"\n', 4],
      ]);
      // The batch travels as one event with one timestamp; other changes get strictly increasing ones.
      expect(
        native.events.some(
          (e) =>
            e.events
              .map((x) => x.key)
              .sort()
              .join() === 'A,N',
        ),
      ).toBe(true);
      expect(live[3]!.timestamp).toBe(live[4]!.timestamp);
      const stamps = [...live.slice(0, 4), ...live.slice(5)].map((e) => e.timestamp);
      for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1]!);

      const expected = eventRows(native.events);
      const expectedBytes = native.events.map((e) => Buffer.from(toBinary(SubscriptionEventSchema, e)));
      protocols.forEach((p, i) => {
        const s = streams[i]!;
        expect(s.error, p.name).toBeUndefined();
        expect(eventRows(s.messages), p.name).toEqual(expected);
        expect(
          s.messages.map((e) => Buffer.from(toBinary(SubscriptionEventSchema, e))),
          p.name,
        ).toEqual(expectedBytes);
      });

      // Every cancelled stream is released on the server.
      const deadline = Date.now() + 10_000;
      while (server.app.openStreams > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(server.app.openStreams).toBe(0);
    });

    it.each(protocols)('resumes $name after a timestamp with only later changes', async (p) => {
      const snapshot = await clientOf(p).getConfig({ serviceId, version: 'stream' });
      const latest = Math.max(...snapshot.entries.map((e) => rowOf(e).timestamp));
      const stream = new ConnectStream(
        (signal) =>
          clientOf(p).startSubscribe({ serviceId, versionId, timestamp: timestampFromMicros(latest) }, { signal }),
        (messages) => messages.length >= 1,
      );
      try {
        await stream.until(() => server.app.openStreams >= 1);
        await setValue(admin, serviceId, versionId, entries.B!, `resumed by ${p.name}`);
        await stream.done;
      } finally {
        await stream.cancel();
      }
      expect(stream.error).toBeUndefined();
      expect(eventRows(stream.messages).map((m) => m.map((e) => [e.key, e.value, e.generation]))).toEqual([
        [['B', `resumed by ${p.name}`, entries.B!.generation]],
      ]);
    });

    it.each(protocols)(
      'ends $name with NotFound for an unknown version and InvalidArgument for a malformed id',
      async (p) => {
        const open = (request: { serviceId: string; versionId: string }) =>
          new ConnectStream((signal) => clientOf(p).startSubscribe(request, { signal }));
        const unknown = open({ serviceId, versionId: MISSING });
        const otherService = open({ serviceId: MISSING, versionId });
        const malformedService = open({ serviceId: 'x', versionId });
        const malformedVersion = open({ serviceId, versionId: `${versionId}-x` });
        await Promise.all([unknown.done, otherService.done, malformedService.done, malformedVersion.done]);
        expect(
          [unknown, otherService, malformedService, malformedVersion].map((s) => [s.error?.code, s.messages.length]),
        ).toEqual([
          [Code.NotFound, 0],
          [Code.NotFound, 0],
          [Code.InvalidArgument, 0],
          [Code.InvalidArgument, 0],
        ]);
        expect(malformedService.error?.rawMessage).toContain('service_id');
        expect(malformedVersion.error?.rawMessage).toContain('version_id');
      },
    );
  });
});
