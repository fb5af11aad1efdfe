import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/** Opens a TCP connection and resolves once it is established. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with what the server sent once it closed the connection. */
function closed(socket: net.Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

describe('slow clients (Server:RequestTimeoutSeconds)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Server:RequestTimeoutSeconds=1'] });
  });
  afterAll(() => server?.close());

  it('answers 408 and closes an HTTP/1.1 connection whose body trickles in', async () => {
    const socket = await connect(server.port);
    const ended = closed(socket);
    socket.write(
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
    try {
      expect(await ended).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes an HTTP/1.1 connection whose headers never finish', async () => {
    const socket = await connect(server.port);
    const ended = closed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
    try {
      expect(await ended).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('resets an HTTP/2 stream whose body trickles in, and keeps serving the connection', async () => {
    const session = http2.connect(server.baseUrl);
    session.on('error', () => undefined);
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/auth/login', 'content-type': 'application/json' });
      stream.on('error', () => undefined);
      stream.write('{');
      const trickle = setInterval(() => !stream.closed && stream.write(' '), 200);
      const code = await new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
      clearInterval(trickle);
      expect(code).toBe(http2.constants.NGHTTP2_CANCEL);

      const health = session.request({ ':path': '/healthz' });
      const status = await new Promise<number>((resolve) =>
        health.once('response', (h) => resolve(Number(h[':status']))),
      );
      health.resume();
      expect(status).toBe(200);
    } finally {
      session.destroy();
    }
  });
});
