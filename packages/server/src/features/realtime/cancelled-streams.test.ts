import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Transport } from '@connectrpc/connect';
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService } from '@realtime-config/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OnePortListener } from '../../platform/server/one-port-listener.js';
import { createListenerFor } from '../../serve.js';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/** pino's levels: 20 is debug. */
const DEBUG = 20;

describe('a client that cancels its StartSubscribe stream', () => {
  let server: TestServer;
  // The listener as main.ts makes it, with the logger: session and stream errors are logged there.
  let listener: OnePortListener;
  let baseUrl: string;
  let port: number;
  let serviceId: string;
  let versionId: string;
  const lines: string[] = [];
  const sessionManagers: Http2SessionManager[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    server = await startTestServer({ deps: { logger } });
    listener = createListenerFor(server.app, logger);
    ({ port } = await listener.listen(0, '127.0.0.1'));
    baseUrl = `http://127.0.0.1:${port}`;
    const admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'cancelled' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: 'a' });
  });
  afterAll(async () => {
    for (const manager of sessionManagers) manager.abort();
    await listener?.close({ timeoutMs: 1000 });
    await server?.close();
  });

  /** What was logged above debug (or with a stack) while `act` ran and for a moment after. */
  async function loggedWhile(act: () => Promise<void>): Promise<string[]> {
    const consoleError = vi.spyOn(console, 'error');
    const start = lines.length;
    try {
      await act();
      await sleep(300);
      const logged = lines
        .slice(start)
        .filter((line) => (JSON.parse(line) as { level: number }).level > DEBUG || line.includes('"stack"'));
      return [...logged, ...consoleError.mock.calls.map((call) => `console.error ${call.map(String).join(' ')}`)];
    } finally {
      consoleError.mockRestore();
    }
  }

  it('with grpc-js call.cancel() logs nothing above debug, after the first event or at once', async () => {
    const client = new GrpcTestClient(`127.0.0.1:${port}`);
    try {
      const logged = await loggedWhile(async () => {
        const stream = client.subscribe({ serviceId, versionId });
        await stream.until((s) => s.events.length === 1);
        stream.cancel();
        for (let i = 0; i < 5; i++) {
          const early = client.subscribe({ serviceId, versionId });
          await sleep(i * 5);
          early.cancel();
        }
      });
      expect(logged).toEqual([]);
    } finally {
      client.close();
    }
  });

  const transports: Array<[string, () => Transport]> = [
    ['Connect over HTTP/1.1', () => createConnectTransport({ httpVersion: '1.1', baseUrl })],
    ['Connect over HTTP/2', () => createConnectTransport({ httpVersion: '2', baseUrl, sessionManager: manager() })],
    ['gRPC-Web over HTTP/1.1', () => createGrpcWebTransport({ httpVersion: '1.1', baseUrl })],
    ['gRPC (Connect-ES client)', () => createGrpcTransport({ baseUrl, sessionManager: manager() })],
  ];
  const manager = () => {
    const created = new Http2SessionManager(baseUrl);
    sessionManagers.push(created);
    return created;
  };

  it.each(transports)('aborted by a %s client logs nothing above debug', async (_name, transport) => {
    const client = createClient(RealtimeConfigGrpcService, transport());
    const logged = await loggedWhile(async () => {
      const controller = new AbortController();
      let received = 0;
      try {
        for await (const _event of client.startSubscribe({ serviceId, versionId }, { signal: controller.signal })) {
          received++;
          controller.abort();
        }
      } catch {
        // The client reports its own abort.
      }
      expect(received).toBe(1);
      const early = new AbortController();
      const pending = client.startSubscribe({ serviceId, versionId }, { signal: early.signal })[Symbol.asyncIterator]();
      const first = pending.next().catch(() => undefined);
      early.abort();
      await first;
    });
    expect(logged).toEqual([]);
  });
});
