import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport, Http2SessionManager } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import {
  microsFromTimestamp,
  RealtimeConfigGrpcService,
  timestampFromMicros,
  ValueType,
} from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { HttpsApiClient } from '@realtime-config/test-support/https-api-client';
import {
  entriesByKey,
  eventRows,
  registerVersion,
  rowOf,
  setValue,
} from '@realtime-config/test-support/realtime-fixtures';
import {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from '@realtime-config/test-support/self-signed-certificate';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * Dial the loopback address but check the certificate against (and send SNI for) the name
 * `localhost`, as a client of a real deployment would; TLS servernames must not be IP addresses.
 */
const BY_NAME: grpc.ClientOptions = {
  'grpc.ssl_target_name_override': 'localhost',
  'grpc.default_authority': 'localhost',
};

describe('gRPC over TLS on the shared port', () => {
  let certificate: SelfSignedCertificate;
  let server: TestServer;
  let rest: HttpsApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    server = await startTestServer({ args: certificate.serverArgs });
    expect(server.baseUrl).toBe(`https://127.0.0.1:${server.port}`);
    rest = await new HttpsApiClient(server.baseUrl, certificate.cert).login();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`, grpc.credentials.createSsl(certificate.cert), BY_NAME);
    const created = await rest.post('/api/services', { name: 'tls-suite' });
    expect(created.status).toBe(201);
    serviceId = created.body.id;
  });
  afterAll(async () => {
    grpcClient?.close();
    rest?.close();
    await server?.close();
    certificate?.remove();
  });

  it('serves CreateVersion, IsVersionExists, GetConfig and StartSubscribe to grpc-js, and REST alongside', async () => {
    expect((await grpcClient.isVersionExists({ serviceId, version: '1.0.0' })).versionId).toBeUndefined();
    const versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [
      { key: 'Db:Timeout', valueType: ValueType.NUMBER, value: '30' },
      { key: 'Feature:Name', value: '' },
      { key: 'Feature:Nothing' },
    ]);
    expect(versionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await grpcClient.isVersionExists({ serviceId, version: '1.0.0' })).versionId).toBe(versionId);

    const snapshot = await grpcClient.getConfig({ serviceId, version: '1.0.0' });
    expect(snapshot.entries.map((e) => [e.key, e.value, e.generation, e.type])).toEqual([
      ['Db:Timeout', '30', 1, ValueType.NUMBER],
      ['Feature:Name', '', 1, ValueType.STRING],
      ['Feature:Nothing', undefined, 1, ValueType.STRING],
    ]);

    // REST over the same TLS port sees what gRPC registered.
    const entries = await entriesByKey(rest, serviceId, versionId);
    expect(Object.keys(entries)).toEqual(['Db:Timeout', 'Feature:Name', 'Feature:Nothing']);
    expect(entries['Db:Timeout']).toMatchObject({ rawValue: '30', generation: 1 });

    const sub = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
    try {
      await sub.until((s) => s.events.length >= 1);
      expect(eventRows(sub.events)).toEqual([snapshot.entries.map(rowOf)]);

      // A live change made through REST over TLS reaches the TLS stream.
      expect(await setValue(rest, serviceId, versionId, entries['Db:Timeout']!, '45')).toBe(2);
      await sub.until((s) => s.events.length >= 2);
      const [live] = eventRows(sub.events.slice(1));
      expect(live).toHaveLength(1);
      expect(live![0]).toMatchObject({ key: 'Db:Timeout', value: '45', generation: 2, type: ValueType.NUMBER });
      const backfillLatest = Math.max(...snapshot.entries.map((e) => microsFromTimestamp(e.timestamp!)));
      expect(live![0]!.timestamp).toBeGreaterThan(backfillLatest);

      const after = await grpcClient.getConfig({ serviceId, version: '1.0.0' });
      expect(after.entries.find((e) => e.key === 'Db:Timeout')).toMatchObject({ value: '45', generation: 2 });
      expect(rowOf(after.entries.find((e) => e.key === 'Db:Timeout')!).timestamp).toBe(live![0]!.timestamp);
      expect(sub.status).toBeUndefined();
      expect(server.listener.http2Sessions.size).toBeGreaterThanOrEqual(1);
    } finally {
      sub.cancel();
    }
  });

  it('answers the error statuses over TLS as over h2c', async () => {
    await expect(grpcClient.getConfig({ serviceId: 'not-a-uuid', version: '1' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    const unknown = grpcClient.subscribe({ serviceId, versionId: '00000000-0000-4000-8000-000000000000' });
    await unknown.until((s) => s.status !== undefined);
    expect(unknown.status?.code).toBe(grpc.status.NOT_FOUND);
  });

  it('refuses a grpc-js client that does not trust the certificate, and keeps serving others', async () => {
    const untrusting = new GrpcTestClient(`127.0.0.1:${server.port}`, grpc.credentials.createSsl(), BY_NAME);
    try {
      await expect(untrusting.getConfig({ serviceId, version: '1.0.0' })).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
      });
    } finally {
      untrusting.close();
    }
    expect((await grpcClient.getConfig({ serviceId, version: '1.0.0' })).entries).toHaveLength(3);
  });

  it('serves Connect-ES clients over TLS: Connect with ALPN h2, gRPC-Web with ALPN http/1.1', async () => {
    const versionId = (await grpcClient.isVersionExists({ serviceId, version: '1.0.0' })).versionId!;
    const sessionManager = new Http2SessionManager(server.baseUrl, {}, { ca: certificate.cert });
    const connectH2 = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '2', baseUrl: server.baseUrl, sessionManager }),
    );
    const grpcWebH1 = createClient(
      RealtimeConfigGrpcService,
      createGrpcWebTransport({ httpVersion: '1.1', baseUrl: server.baseUrl, nodeOptions: { ca: certificate.cert } }),
    );
    try {
      const expected = await grpcClient.getConfig({ serviceId, version: '1.0.0' });
      for (const client of [connectH2, grpcWebH1]) {
        expect((await client.getConfig({ serviceId, version: '1.0.0' })).entries.map(rowOf)).toEqual(
          expected.entries.map(rowOf),
        );
        const stream = new ConnectStream(
          (signal) => client.startSubscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) }, { signal }),
          (messages) => messages.length >= 1,
        );
        await stream.done;
        expect(stream.error).toBeUndefined();
        // The backfill holds every entry (in change order; the snapshot is in key order).
        expect(stream.messages).toHaveLength(1);
        const backfill = stream.messages[0]!.events.map(rowOf).sort((a, b) => a.key.localeCompare(b.key));
        expect(backfill).toEqual(expected.entries.map(rowOf));
        await expect(client.getConfig({ serviceId: 'nope', version: '1' })).rejects.toSatisfy(
          (e) => e instanceof ConnectError && e.code === Code.InvalidArgument,
        );
      }
    } finally {
      sessionManager.abort();
    }
  });
});
