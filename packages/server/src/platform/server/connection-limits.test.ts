import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import { SERVICE_PATH, StartSubscribeRequestSchema, timestampFromMicros } from '@realtime-config/protocol';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { frameOf } from '@realtime-config/test-support/raw-grpc';
import { readMetric } from '@realtime-config/test-support/realtime-fixtures';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

interface Tracked {
  readonly session: http2.ClientHttp2Session;
  /** The GOAWAY code the server sent, if it sent one. */
  goaway: number | undefined;
  closed: boolean;
}

const opened: http2.ClientHttp2Session[] = [];

afterEach(() => {
  for (const session of opened.splice(0)) session.destroy();
});

function ping(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve, reject) => session.ping((err) => (err ? reject(err) : resolve())));
}

/**
 * An h2c connection from `localAddress` (any 127.x.y.z is loopback on Linux). Resolves once the
 * server has answered a PING, so it has taken the connection in; the client answers the server's
 * PINGs by itself, as the sessions of the probe did.
 */
async function openSession(port: number, localAddress = '127.0.0.1'): Promise<Tracked> {
  const session = http2.connect(`http://127.0.0.1:${port}`, {
    createConnection: () => net.connect({ port, host: '127.0.0.1', localAddress }),
  });
  opened.push(session);
  const tracked: Tracked = { session, goaway: undefined, closed: false };
  session.on('error', () => undefined);
  session.on('goaway', (code) => (tracked.goaway = code));
  session.on('close', () => (tracked.closed = true));
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('close', () => reject(new Error('closed before it connected')));
  });
  await ping(session);
  return tracked;
}

/** A connection with a request whose body never ends: busy until Server:RequestTimeoutSeconds. */
async function openBusySession(
  port: number,
  localAddress = '127.0.0.1',
): Promise<Tracked & { stream: http2.ClientHttp2Stream }> {
  const tracked = await openSession(port, localAddress);
  const stream = tracked.session.request({
    ':method': 'POST',
    ':path': '/auth/login',
    'content-type': 'application/json',
  });
  stream.on('error', () => undefined);
  stream.write('{');
  // Frames are handled in order: once the PING is answered, the server has seen the stream.
  await ping(tracked.session);
  return Object.assign(tracked, { stream });
}

/** Signs in as the admin over a new HTTP/2 connection; resolves with the status. */
function signInOverNewConnection(port: number): Promise<number> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  return new Promise<number>((resolve, reject) => {
    session.once('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/auth/login', 'content-type': 'application/json' });
    let status = 0;
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('error', reject);
    stream.on('close', () => (status ? resolve(status) : reject(new Error('closed without an answer'))));
    stream.resume();
    stream.end(JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }));
  }).finally(() => session.close());
}

/** GET /healthz over a new HTTP/1.1 connection; resolves with the status. */
function healthOverNewConnection(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

/** Asks for /healthz over a raw TCP connection; resolves with all the server sent before it closed ('' when refused). */
function askOverRawTcp(port: number, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('close', () => resolve(received));
  });
}

async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function memoryLogger() {
  const lines: Array<{ level: number; msg?: string; occurrences?: number }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const evicted = (reason: string) => ['realtime_connections_evicted_total', `reason="${reason}"`] as const;
const rejected = (reason: string) => ['realtime_connections_rejected_total', `reason="${reason}"`] as const;

describe.each(oneDatabaseKind)('Server:IdleTimeoutSeconds on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    // The server pings every connection often; answering them must not keep an idle one open.
    server = await startTestServer({ kind, args: ['--Server:IdleTimeoutSeconds=1', '--Grpc:KeepAliveSeconds=0.2'] });
  });
  afterAll(() => server?.close());

  it('closes HTTP/2 connections without an open stream with GOAWAY, and keeps one with an open StartSubscribe', async () => {
    const admin = await server.admin();
    const serviceId = (await admin.post('/api/services', { name: 'idle-connections' })).body.id;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'first-key', valueType: 1, rawValue: 'a' });
    const idleBefore = await readMetric(admin, ...evicted('idle-timeout'));

    const silent = await openSession(server.port);
    const used = await openSession(server.port);
    const health = used.session.request({ ':path': '/healthz' });
    health.resume();
    await new Promise((resolve) => health.once('close', resolve));

    const subscriber = await openSession(server.port);
    const stream = subscriber.session.request({
      ':method': 'POST',
      ':path': `${SERVICE_PATH}/StartSubscribe`,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const received: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => received.push(chunk));
    stream.on('error', () => undefined);
    const request = create(StartSubscribeRequestSchema, { serviceId, versionId, timestamp: timestampFromMicros(0) });
    stream.write(frameOf(toBinary(StartSubscribeRequestSchema, request)));
    await eventually(() => Buffer.concat(received).includes('first-key'), 'the backfill');

    await eventually(() => silent.closed && used.closed, 'the idle connections to be closed');
    expect(silent.goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(used.goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);

    // Well past the timeout, the subscriber's connection is still there and still delivers.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(subscriber.closed).toBe(false);
    expect(subscriber.goaway).toBeUndefined();
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'second-key',
      valueType: 1,
      rawValue: 'b',
    });
    await eventually(() => Buffer.concat(received).includes('second-key'), 'the change on the quiet stream');
    expect(subscriber.closed).toBe(false);

    expect(await readMetric(admin, ...evicted('idle-timeout'))).toBeGreaterThanOrEqual(idleBefore + 2);
    stream.close();
  });
});

describe.each(oneDatabaseKind)('Server:MaxConnections on %s', (kind) => {
  const CAP = 12;
  const log = memoryLogger();
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: [`--Server:MaxConnections=${CAP}`], deps: { logger: log.logger } });
  });
  afterAll(() => server?.close());

  it('keeps admitting new clients during a flood of idle HTTP/2 connections from several addresses', async () => {
    const addresses = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
    const flood: Tracked[] = [];
    const statuses: number[] = [];
    for (let wave = 0; wave < 10; wave++) {
      // A new client (signing in, or a health check) connects while the flood's next wave does.
      const [sessions, status] = await Promise.all([
        Promise.all(addresses.map((address) => openSession(server.port, address))),
        wave % 2 === 0 ? signInOverNewConnection(server.port) : healthOverNewConnection(server.port),
      ]);
      flood.push(...sessions);
      statuses.push(status);
    }
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));

    // The longest idle went first, each with GOAWAY; the newest wave is still open.
    await eventually(() => flood.filter((t) => t.closed).length >= flood.length - CAP, 'the evictions to finish');
    expect(server.listener.openConnections).toBeLessThanOrEqual(CAP);
    expect(flood.slice(0, 20).every((t) => t.closed && t.goaway === http2.constants.NGHTTP2_NO_ERROR)).toBe(true);
    expect(flood.slice(-addresses.length).some((t) => t.closed)).toBe(false);

    const admin = await server.admin();
    const evictions = await readMetric(admin, ...evicted('max-connections'));
    expect(evictions).toBeGreaterThanOrEqual(flood.length - CAP);
    expect(await readMetric(admin, ...rejected('max-connections'))).toBe(0);
    expect(await readMetric(admin, 'realtime_open_connections')).toBeLessThanOrEqual(CAP);

    // Logged, but not once per eviction.
    const warnings = log.lines.filter((line) =>
      /Server:MaxConnections=12.*closed the longest idle/.test(line.msg ?? ''),
    );
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThan(evictions);
    expect(warnings[0]?.level).toBe(40);
  });

  it('refuses a new connection only while none is idle, and admits again once one is', async () => {
    // Whatever is still open from before is idle: the busy connections below take its place.
    const rejectedBefore = log.lines.filter((line) => /no connection is idle/.test(line.msg ?? '')).length;

    const busy: Array<Awaited<ReturnType<typeof openBusySession>>> = [];
    for (let i = 0; i < CAP; i++) busy.push(await openBusySession(server.port));
    expect(await askOverRawTcp(server.port, '127.0.0.2')).toBe('');
    expect(busy.some((t) => t.closed)).toBe(false);

    // One request ends: its connection is idle now, and the next new one takes its place.
    busy[0]!.stream.close();
    await ping(busy[0]!.session);
    expect(await askOverRawTcp(server.port, '127.0.0.2')).toMatch(/^HTTP\/1\.1 200 /);
    await eventually(() => busy[0]!.closed, 'the idle connection to be evicted');
    expect(busy[0]!.goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(busy.slice(1).some((t) => t.closed)).toBe(false);

    // A slot is free again (the raw client has hung up): the metrics can be read.
    const admin = server.client();
    expect(await readMetric(admin, ...rejected('max-connections'))).toBe(1);
    expect(log.lines.filter((line) => /no connection is idle/.test(line.msg ?? '')).length).toBe(rejectedBefore + 1);
  });
});

describe.each(oneDatabaseKind)('Server:MaxConnectionsPerAddress on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Server:MaxConnectionsPerAddress=3'] });
  });
  afterAll(() => server?.close());

  it("evicts an address's longest idle connection at its limit, refuses it only when all are busy, and leaves other addresses alone", async () => {
    const idle: Tracked[] = [];
    for (let i = 0; i < 3; i++) idle.push(await openSession(server.port, '127.0.0.2'));
    expect(await askOverRawTcp(server.port, '127.0.0.2')).toMatch(/^HTTP\/1\.1 200 /);
    await eventually(() => idle[0]!.closed, 'the longest idle connection to be evicted');
    expect(idle[0]!.goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(idle.slice(1).some((t) => t.closed)).toBe(false);

    const busy: Array<Awaited<ReturnType<typeof openBusySession>>> = [];
    for (let i = 0; i < 3; i++) busy.push(await openBusySession(server.port, '127.0.0.3'));
    expect(await askOverRawTcp(server.port, '127.0.0.3')).toBe('');
    expect(busy.some((t) => t.closed)).toBe(false);
    expect(await askOverRawTcp(server.port, '127.0.0.4')).toMatch(/^HTTP\/1\.1 200 /);

    const client = server.client();
    expect(await readMetric(client, ...evicted('max-connections-per-address'))).toBe(1);
    expect(await readMetric(client, ...rejected('max-connections-per-address'))).toBe(1);
  });
});
