import * as grpc from '@grpc/grpc-js';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { readMetric, registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * Server:MaxStreams: beyond it a new stream of any protocol ends at once with RESOURCE_EXHAUSTED and
 * retry-after-ms. The streams carry an API key: anonymous ones would stop at half the limit first.
 */
describe('the stream limit', () => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  let apiKey: string;
  const open: Subscription[] = [];

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Server:MaxStreams=2'] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'stream-limit' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [{ key: 'Greeting', value: 'hello' }]);
    apiKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'sdk', scopes: ['read'] })).body.key;
  });
  afterAll(async () => {
    for (const s of open) s.cancel();
    grpcClient?.close();
    await server?.close();
  });

  const subscribe = (): Subscription => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${apiKey}`);
    const sub = grpcClient.subscribe({ serviceId, versionId }, metadata);
    open.push(sub);
    return sub;
  };

  it('refuses the stream beyond the limit on the native path and through Connect, and admits one again when a stream closes', async () => {
    const first = subscribe();
    const second = subscribe();
    await first.until((s) => s.events.length > 0);
    await second.until((s) => s.events.length > 0);

    const refused = subscribe();
    await refused.until((s) => s.status !== undefined);
    expect(refused.status?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const retryAfter = Number(refused.status?.metadata.get('retry-after-ms')[0]);
    expect(retryAfter).toBeGreaterThanOrEqual(1000);
    expect(refused.events).toHaveLength(0);

    const client = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    const viaConnect = new ConnectStream((signal) =>
      client.startSubscribe({ serviceId, versionId }, { signal, headers: { authorization: `Bearer ${apiKey}` } }),
    );
    await viaConnect.done;
    expect(viaConnect.error).toBeInstanceOf(ConnectError);
    expect(viaConnect.error?.code).toBe(Code.ResourceExhausted);
    expect(Number(viaConnect.error?.metadata.get('retry-after-ms'))).toBeGreaterThanOrEqual(1000);
    expect(await readMetric(admin, 'realtime_streams_refused_total', 'reason="max-streams"')).toBe(2);
    expect(server.app.openStreams).toBe(2);

    first.cancel();
    await expect.poll(() => server.app.openStreams).toBe(1);
    const admitted = subscribe();
    await admitted.until((s) => s.events.length > 0);
    expect(admitted.status).toBeUndefined();
  });
});
