import net from 'node:net';
import { timestampFromMicros } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A TCP relay that can go silent: it stops passing bytes either way without closing anything, as a
 * peer that lost power or a NAT that dropped its entry would look to the server.
 */
function silentableRelay(targetPort: number) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => silent || upstream.write(d));
    upstream.on('data', (d) => silent || client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    goSilent: () => {
      silent = true;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HTTP/2 keep-alive', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Grpc:KeepAliveSeconds=0.2'] });
  });
  afterAll(() => server.close());

  it('closes the connection of a subscriber that stops answering pings, and ends its subscription', async () => {
    const admin = await server.admin();
    const serviceId = (await admin.post('/api/services', { name: 'keep-alive' })).body.id;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: 'a' });

    const relay = silentableRelay(server.port);
    const port = await relay.listen();
    // The client's own keep-alive is off: only the server's pings can notice the silence.
    const client = new GrpcTestClient(`127.0.0.1:${port}`);
    const healthy = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      const vanishing = client.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      const staying = healthy.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      await vanishing.until((s) => s.events.length >= 1);
      await staying.until((s) => s.events.length >= 1);
      expect(server.app.openStreams).toBe(2);

      relay.goSilent();
      // Unanswered pings: the server closes that connection and forgets the subscription, while
      // the healthy subscriber (which answers pings) stays.
      const deadline = Date.now() + 15_000;
      while (server.app.openStreams > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(server.app.openStreams).toBe(1);
      await new Promise((r) => setTimeout(r, 600)); // a few more ping rounds
      expect(server.app.openStreams).toBe(1);
      vanishing.cancel();
      staying.cancel();
    } finally {
      client.close();
      healthy.close();
      await relay.close();
    }
  });
});
