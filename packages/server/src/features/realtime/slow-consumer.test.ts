import http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { SERVICE_PATH, StartSubscribeRequestSchema, timestampFromMicros } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { entriesByKey, readMetric, registerVersion, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const CHANGES = 200;
const VALUE_BYTES = 64 * 1024;
/**
 * How many changes the writer may be ahead of the reading subscriber. grpc-js's default HTTP/2
 * window is 64 KiB, so a 64 KiB event needs a WINDOW_UPDATE round trip; written back to back,
 * changes outrun even a client that reads all it can, and past the server's 8 MiB per-stream limit
 * it would be dropped too. Keeping the writer at most 4 changes (256 KiB) ahead of the reader makes
 * "the reader keeps up" a fact of the test instead of a matter of speed; the stalled subscriber
 * still falls one change further behind with every change.
 */
const MAX_AHEAD = 4;

/** A distinct 64 KiB value per change, recognisable by its prefix. */
const bigValue = (i: number) => `change ${i}:`.padEnd(VALUE_BYTES, String.fromCharCode(97 + (i % 26)));

/** The gRPC length-prefixed message: flag 0, 4-byte big-endian length, the message bytes. */
function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

interface StalledSubscriber {
  session: http2.ClientHttp2Session;
  stream: http2.ClientHttp2Stream;
  responseHeaders: http2.IncomingHttpHeaders | undefined;
  closed: Promise<void>;
}

/**
 * A native gRPC StartSubscribe over a raw HTTP/2 connection whose client never reads: the stream is
 * paused and its flow-control window is tiny, so whatever the server writes piles up on its side.
 */
async function openStalledSubscriber(
  port: number,
  request: { serviceId: string; versionId: string },
): Promise<StalledSubscriber> {
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: 1024 } });
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  const stream = session.request({
    ':method': 'POST',
    ':path': `${SERVICE_PATH}/StartSubscribe`,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => undefined); // the reset we expect surfaces as an error on some Node versions
  const subscriber: StalledSubscriber = {
    session,
    stream,
    responseHeaders: undefined,
    closed: new Promise((resolve) => stream.once('close', () => resolve())),
  };
  stream.once('response', (headers) => (subscriber.responseHeaders = headers));
  stream.pause();
  stream.end(
    grpcFrame(
      toBinary(
        StartSubscribeRequestSchema,
        create(StartSubscribeRequestSchema, { ...request, timestamp: timestampFromMicros(0) }),
      ),
    ),
  );
  return subscriber;
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(databaseKinds)('a subscriber that stops reading on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    grpcClient?.close();
    await server?.close();
  });

  it('is dropped, while a reading subscriber of the same version receives every change', async () => {
    const serviceId = (await admin.post('/api/services', { name: 'slow-consumer' })).body.id;
    const versionId = await registerVersion(grpcClient, serviceId, '1', [{ key: 'Big', value: 'initial' }]);
    const entry = (await entriesByKey(admin, serviceId, versionId)).Big!;
    const droppedBefore = await readMetric(admin, 'realtime_subscribers_dropped_total');

    const reader = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
    const stalled = await openStalledSubscriber(server.port, { serviceId, versionId });
    try {
      await reader.until((s) => s.events.length >= 1);
      // The stalled stream is established (its backfill is waiting on the server) before the changes start.
      await waitFor(
        () => stalled.responseHeaders !== undefined && server.app.openStreams === 2,
        'the stalled subscription',
      );
      expect(stalled.responseHeaders?.[':status']).toBe(200);
      expect(stalled.responseHeaders?.['content-type']).toBe('application/grpc');

      for (let i = 1; i <= CHANGES; i++) {
        await reader.until((s) => s.configEvents.length - 1 >= i - 1 - MAX_AHEAD, 30_000);
        await setValue(admin, serviceId, versionId, entry, bigValue(i));
      }
      await server.flushChanges();

      await reader.until((s) => s.configEvents.length >= 1 + CHANGES, 60_000);
      const live = reader.configEvents.slice(1);
      expect(live.map((e) => [e.key, e.generation, e.value?.length, e.value?.slice(0, 12)])).toEqual(
        Array.from({ length: CHANGES }, (_, k) => ['Big', k + 2, VALUE_BYTES, bigValue(k + 1).slice(0, 12)]),
      );
      expect(live.every((e, k) => e.value === bigValue(k + 1))).toBe(true);
      expect(reader.status).toBeUndefined();

      // The stalled one was cut off: its stream is reset (the queued data and any trailers are
      // discarded, so there is no grpc-status), its subscription released and counted.
      await waitFor(() => stalled.stream.closed, 'the stalled stream to be reset');
      await stalled.closed;
      // REFUSED_STREAM: gRPC clients report it as UNAVAILABLE and reconnect (CANCEL would read as
      // the client's own cancellation).
      expect(stalled.stream.rstCode).toBe(http2.constants.NGHTTP2_REFUSED_STREAM);
      expect(server.app.openStreams).toBe(1);
      expect(await readMetric(admin, 'realtime_subscribers_dropped_total')).toBe(droppedBefore + 1);
      expect(await readMetric(admin, 'realtime_open_subscriptions')).toBe(1);

      // The connection of the dropped subscriber is still usable: it may reconnect on it and resume.
      const again = await new Promise<number>((resolve, reject) => {
        const s = stalled.session.request({ ':method': 'GET', ':path': '/healthz' });
        s.on('response', (h) => resolve(Number(h[':status'])));
        s.on('error', reject);
        s.resume();
        s.end();
      });
      expect(again).toBe(200);
    } finally {
      reader.cancel();
      stalled.stream.close();
      stalled.session.destroy();
    }
  });
});
