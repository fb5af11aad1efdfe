import { Code, createClient } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { RealtimeConfigGrpcService, timestampFromMicros } from '@realtime-config/protocol';
import { describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer } from '@realtime-config/test-support/test-server';

const SHUTTING_DOWN = /shutting down/;

describe.each(databaseKinds)('graceful shutdown with open change streams on %s', (kind) => {
  it('ends native gRPC and Connect streams with UNAVAILABLE, then closes', async () => {
    const server = await startTestServer({ kind });
    const grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    const sessionManager = new Http2SessionManager(server.baseUrl);
    try {
      const admin = await server.admin();
      const serviceId = (await admin.post('/api/services', { name: 'shutdown' })).body.id;
      const versionId = await registerVersion(grpcClient, serviceId, '1', [{ key: 'A', value: '1' }]);
      const request = { serviceId, versionId, timestamp: timestampFromMicros(0) };

      const native = grpcClient.subscribe(request);
      const connectH1 = createClient(
        RealtimeConfigGrpcService,
        createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
      );
      const connectH2 = createClient(
        RealtimeConfigGrpcService,
        createConnectTransport({ httpVersion: '2', baseUrl: server.baseUrl, sessionManager }),
      );
      const overHttp1 = new ConnectStream((signal) => connectH1.startSubscribe(request, { signal }));
      const overHttp2 = new ConnectStream((signal) => connectH2.startSubscribe(request, { signal }));
      await native.until((s) => s.events.length >= 1);
      await overHttp1.until((s) => s.messages.length >= 1);
      await overHttp2.until((s) => s.messages.length >= 1);
      expect(server.app.openStreams).toBe(3);

      // What main.ts does on SIGTERM: drain, close the listener, release the app.
      server.app.drain();
      expect((await admin.get('/readyz')).status).toBe(503);
      // Started first with a long timeout, so server.close() below waits for this graceful close
      // instead of destroying what is left after its own short timeout: it only resolves when every
      // stream and connection has really finished.
      const listenerClosed = server.listener.close({ timeoutMs: 30_000 });
      await expect(server.close()).resolves.toBeUndefined();
      await listenerClosed;

      await native.until((s) => s.status !== undefined);
      await overHttp1.done;
      await overHttp2.done;
      // The server's own message tells a clean UNAVAILABLE from a dropped connection (which grpc-js
      // would also report as UNAVAILABLE).
      expect(native.status).toMatchObject({
        code: grpc.status.UNAVAILABLE,
        details: expect.stringMatching(SHUTTING_DOWN),
      });
      expect(native.error?.code).toBe(grpc.status.UNAVAILABLE);
      for (const s of [overHttp1, overHttp2]) {
        expect(s.error?.code).toBe(Code.Unavailable);
        expect(s.error?.rawMessage).toMatch(SHUTTING_DOWN);
        expect(s.messages).toHaveLength(1);
      }
      expect(native.events).toHaveLength(1);
      expect(server.app.openStreams).toBe(0);
      expect(server.listener.http2Sessions.size).toBe(0);
    } finally {
      sessionManager.abort();
      grpcClient.close();
      await server.close();
    }
  });

  it('refuses new streams once draining, with UNAVAILABLE', async () => {
    const server = await startTestServer({ kind });
    const grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      const admin = await server.admin();
      const serviceId = (await admin.post('/api/services', { name: 'draining' })).body.id;
      const versionId = await registerVersion(grpcClient, serviceId, '1', [{ key: 'A', value: '1' }]);
      server.app.drain();

      // The listener is still open (main.ts closes it right after); a stream opened now must not
      // be left hanging on a server that is about to go away.
      const native = grpcClient.subscribe({ serviceId, versionId });
      await native.until((s) => s.status !== undefined);
      expect(native.status?.code).toBe(grpc.status.UNAVAILABLE);
      const connect = createClient(
        RealtimeConfigGrpcService,
        createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
      );
      const stream = new ConnectStream((signal) => connect.startSubscribe({ serviceId, versionId }, { signal }));
      await stream.done;
      expect(stream.error?.code).toBe(Code.Unavailable);
      expect(server.app.openStreams).toBe(0);
    } finally {
      grpcClient.close();
      await server.close();
    }
  });
});
