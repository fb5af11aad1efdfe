import type http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { Code, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService, SERVICE_PATH, StartSubscribeRequestSchema } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import {
  frameOf,
  openRawStream,
  rawSession,
  type RawStream,
  type RawStreamOutcome,
} from '@realtime-config/test-support/raw-grpc';
import { entriesByKey, readMetric, registerVersion, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * The stream limits (docs/grpc.md, Stream limits): per HTTP/2 connection, per peer address, and half
 * of Server:MaxStreams for streams without credentials. A flood fills only its own share, so an SDK
 * with an API key from elsewhere still gets in; a refused stream ends with RESOURCE_EXHAUSTED and
 * retry-after-ms on every path, and a closed stream gives its place back.
 */

const RESOURCE_EXHAUSTED = 8;
const SUBSCRIBE = `${SERVICE_PATH}/StartSubscribe`;

interface Fixture {
  server: TestServer;
  admin: ApiClient;
  grpcClient: GrpcTestClient;
  serviceId: string;
  versionId: string;
  apiKey: string;
}

async function startWith(args: string[]): Promise<Fixture> {
  const server = await startTestServer({ args });
  const admin = await server.admin();
  const grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
  const serviceId = (await admin.post('/api/services', { name: 'stream-admission' })).body.id as string;
  const versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [{ key: 'Greeting', value: 'hello' }]);
  const apiKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'sdk', scopes: ['read'] })).body
    .key as string;
  return { server, admin, grpcClient, serviceId, versionId, apiKey };
}

const requestOf = (f: Fixture): Buffer =>
  frameOf(toBinary(StartSubscribeRequestSchema, create(StartSubscribeRequestSchema, f)));

type Answered = { readonly stream: RawStream; readonly outcome: RawStreamOutcome };

/** Opens `count` StartSubscribe streams on one raw connection at once and waits for the server's answers. */
async function openMany(
  f: Fixture,
  session: http2.ClientHttp2Session,
  count: number,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<Answered[]> {
  const streams = Array.from({ length: count }, () => openRawStream(session, SUBSCRIBE, requestOf(f), headers));
  const outcomes = await Promise.all(streams.map((s) => s.outcome));
  return streams.map((stream, i) => ({ stream, outcome: outcomes[i]! }));
}

const opened = (results: readonly Answered[]): Answered[] => results.filter((r) => r.outcome.open);
const refused = (results: readonly Answered[]): Answered[] => results.filter((r) => !r.outcome.open);

/** Every refusal is RESOURCE_EXHAUSTED with a retry-after-ms of a few seconds. */
function expectRefusedWithRetryAfter(results: readonly Answered[], message: RegExp): void {
  for (const { outcome } of results) {
    expect(outcome.grpcStatus).toBe(RESOURCE_EXHAUSTED);
    expect(outcome.retryAfterMs).toBeGreaterThanOrEqual(2000);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(5000);
    expect(decodeURIComponent(outcome.rawMessage ?? '')).toMatch(message);
  }
}

async function closeAll(results: readonly Answered[]): Promise<void> {
  for (const { stream } of results) stream.close();
  await Promise.all(results.map(({ stream }) => stream.closed));
}

describe('stream limits per connection and per address', () => {
  let f: Fixture;
  const sessions: http2.ClientHttp2Session[] = [];
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    // Half of MaxStreams (20) for anonymous streams is more than one address may hold (12).
    f = await startWith([
      '--Server:MaxStreams=40',
      '--Server:MaxStreamsPerConnection=5',
      '--Server:MaxStreamsPerAddress=12',
    ]);
  });
  afterAll(async () => {
    for (const s of subscriptions) s.cancel();
    for (const s of sessions) s.destroy();
    f.grpcClient?.close();
    await f.server?.close();
  });

  const connectFrom = (address: string): http2.ClientHttp2Session => {
    const session = rawSession(f.server.baseUrl, address);
    sessions.push(session);
    return session;
  };

  it('holds a flood from one address to its share, while an SDK with an API key from another address connects and receives a change', async () => {
    const flood = await Promise.all(
      Array.from({ length: 5 }, () => openMany(f, connectFrom('127.0.0.2'), 10)), // 50 streams
    );
    for (const connection of flood) expect(opened(connection).length).toBeLessThanOrEqual(5);
    const all = flood.flat();
    expect(opened(all)).toHaveLength(12);
    expectRefusedWithRetryAfter(refused(all), /limit of (5|12) change streams/);
    expect(await readMetric(f.admin, 'realtime_streams_refused_total', 'reason="per-address"')).toBeGreaterThan(0);
    expect(await readMetric(f.admin, 'realtime_streams_refused_total', 'reason="per-connection"')).toBeGreaterThan(0);

    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${f.apiKey}`);
    const sdk = f.grpcClient.subscribe({ serviceId: f.serviceId, versionId: f.versionId }, metadata);
    subscriptions.push(sdk);
    await sdk.until((s) => s.events.length > 0);
    const entries = await entriesByKey(f.admin, f.serviceId, f.versionId);
    await setValue(f.admin, f.serviceId, f.versionId, entries['Greeting']!, 'after the flood');
    await sdk.until((s) => s.configEvents.some((e) => e.value === 'after the flood'));
    expect(sdk.status).toBeUndefined();

    await closeAll(all);
  });

  it('gives back the places of closed streams on their connection and their address', async () => {
    const address = '127.0.0.3';
    const a = connectFrom(address);
    const first = await openMany(f, a, 6);
    expect(opened(first)).toHaveLength(5);
    expectRefusedWithRetryAfter(refused(first), /This connection holds its limit of 5/);

    // Two streams on the full connection close: two new ones on it get in, a third does not.
    await closeAll(opened(first).slice(0, 2));
    const again = await openMany(f, a, 3);
    expect(opened(again)).toHaveLength(2);
    expectRefusedWithRetryAfter(refused(again), /This connection holds its limit of 5/);

    // The address fills up over more connections (5 + 5 + 2 = 12) ...
    const b = connectFrom(address);
    const onB = await openMany(f, b, 5);
    expect(opened(onB)).toHaveLength(5);
    const c = connectFrom(address);
    const onC = await openMany(f, c, 3);
    expect(opened(onC)).toHaveLength(2);
    expectRefusedWithRetryAfter(refused(onC), /This address holds its limit of 12/);

    // ... and has room again once streams close, one by one or with their whole connection.
    await closeAll(opened(onB));
    const moreOnC = await openMany(f, c, 3);
    expect(opened(moreOnC)).toHaveLength(3);
    const gone = new Promise<void>((resolve) => a.once('close', () => resolve()));
    a.destroy();
    await gone;
    await expect.poll(() => f.server.app.openStreams).toBe(1 + 5); // the SDK's stream and C's five
    const d = connectFrom(address);
    const onD = await openMany(f, d, 5);
    expect(opened(onD)).toHaveLength(5);
  });

  it('refuses with RESOURCE_EXHAUSTED and retry-after-ms on the native path (grpc-js) and through Connect', async () => {
    // grpc-js: one channel is one connection (a pool of its own, not shared with the other clients).
    const native = new GrpcTestClient(`127.0.0.1:${f.server.port}`, undefined, { 'grpc.use_local_subchannel_pool': 1 });
    try {
      const streams = Array.from({ length: 6 }, () =>
        native.subscribe({ serviceId: f.serviceId, versionId: f.versionId }),
      );
      subscriptions.push(...streams);
      await Promise.all(streams.map((s) => s.until((x) => x.events.length > 0 || x.status !== undefined)));
      const refusedNative = streams.filter((s) => s.status !== undefined);
      expect(refusedNative).toHaveLength(1);
      expect(refusedNative[0]?.status?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(Number(refusedNative[0]?.status?.metadata.get('retry-after-ms')[0])).toBeGreaterThanOrEqual(2000);
      for (const s of streams) s.cancel();
    } finally {
      native.close();
    }

    // Connect protocol over one HTTP/2 connection.
    const client = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '2', baseUrl: f.server.baseUrl }),
    );
    const viaConnect = Array.from(
      { length: 6 },
      () =>
        new ConnectStream((signal) =>
          client.startSubscribe({ serviceId: f.serviceId, versionId: f.versionId }, { signal }),
        ),
    );
    await Promise.all(viaConnect.map((s) => s.until((x) => x.messages.length > 0 || x.ended)));
    const refusedConnect = viaConnect.filter((s) => s.ended);
    expect(refusedConnect).toHaveLength(1);
    expect(refusedConnect[0]?.error?.code).toBe(Code.ResourceExhausted);
    expect(refusedConnect[0]?.error?.message).toMatch(/This connection holds its limit of 5/);
    expect(Number(refusedConnect[0]?.error?.metadata.get('retry-after-ms'))).toBeGreaterThanOrEqual(2000);
    await Promise.all(viaConnect.map((s) => s.cancel()));
  });
});

describe('streams without credentials', () => {
  let f: Fixture;
  let session: http2.ClientHttp2Session;

  beforeAll(async () => {
    f = await startWith([
      '--Server:MaxStreams=8',
      '--Server:MaxStreamsPerConnection=0',
      '--Server:MaxStreamsPerAddress=0',
    ]);
    session = rawSession(f.server.baseUrl);
  });
  afterAll(async () => {
    session?.destroy();
    f.grpcClient?.close();
    await f.server?.close();
  });

  it('hold at most half of Server:MaxStreams, while streams with an API key still get in', async () => {
    const anonymous = await openMany(f, session, 6);
    expect(opened(anonymous)).toHaveLength(4);
    expectRefusedWithRetryAfter(refused(anonymous), /limit of 4 change streams without credentials/);
    // A credential that names nobody counts as none.
    const bogus = await openMany(f, session, 1, { authorization: 'Bearer not-a-key' });
    expect(opened(bogus)).toHaveLength(0);

    const keyed = await openMany(f, session, 4, { authorization: `Bearer ${f.apiKey}` });
    expect(opened(keyed)).toHaveLength(4);
    // Server:MaxStreams holds for every stream.
    const beyond = await openMany(f, session, 1, { authorization: `Bearer ${f.apiKey}` });
    expectRefusedWithRetryAfter(refused(beyond), /This server holds its limit of 8 change streams/);
    expect(await readMetric(f.admin, 'realtime_streams_refused_total', 'reason="anonymous"')).toBe(3);
    expect(await readMetric(f.admin, 'realtime_streams_refused_total', 'reason="max-streams"')).toBe(1);

    // An anonymous stream that closes makes room for another one.
    await closeAll(opened(anonymous).slice(0, 1));
    expect(opened(await openMany(f, session, 1))).toHaveLength(1);
  });
});
