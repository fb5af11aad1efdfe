/**
 * A stand-in server for http2-floor.ts: holds StartSubscribe-shaped streams open with nothing of the
 * app behind them, to tell what Node's HTTP/2 itself costs per connection and per write from what
 * the service adds. Modes (argv[2]):
 * - `node-h2c`: a plain `http2.createServer()` listening on its own port;
 * - `one-port`: the service's own one-port listener (dist/server/src/platform/server/one-port-listener.js),
 *   with a stream handler that only answers the headers, as the native fast path does.
 * Driven over IPC: `memory` (full GC, then process.memoryUsage()), `snapshot` (a V8 heap snapshot
 * to `file`), `broadcast` (writes one
 * SubscriptionEvent frame to every open stream, as the fan-out does), `exit`.
 * GetConfig calls are answered with one pre-encoded frame of a 200-entry GetConfigResponse written
 * straight to the stream: what a native GetConfig path serving cached bytes would cost at most.
 */
import http2 from 'node:http2';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { create, toBinary } from '@bufbuild/protobuf';
import {
  GetConfigResponseSchema,
  GetConfigResponse_ConfigEntrySchema,
  SubscriptionEventSchema,
  SubscriptionEvent_ConfigEventSchema,
  timestampFromMicros,
} from '@realtime-config/protocol';
import type { createOnePortListener as CreateOnePortListener } from '../../src/platform/server/one-port-listener.js';
import { nowMs } from './common.js';
import { exitWithParent, sendToParent } from './worker-process.js';

type Mode = 'node-h2c' | 'one-port';
const mode = (process.argv[2] ?? 'node-h2c') as Mode;
const streams = new Set<http2.ServerHttp2Stream>();

const getConfigFrame = (() => {
  const body = toBinary(
    GetConfigResponseSchema,
    create(GetConfigResponseSchema, {
      entries: Array.from({ length: 200 }, (_, i) =>
        create(GetConfigResponse_ConfigEntrySchema, {
          key: `App:Section${String(i % 10).padStart(2, '0')}:Setting${String(i).padStart(3, '0')}`,
          value: `value-${'0123456789abcdef'.repeat(2).slice(0, 24)}`,
          generation: 1,
          timestamp: timestampFromMicros(Date.now() * 1000 + i),
          type: 1,
        }),
      ),
    }),
  );
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return frame;
})();

function hold(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  if (headers[':path']?.endsWith('/GetConfig')) {
    stream.on('error', () => undefined);
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.resume();
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.end(getConfigFrame);
    return;
  }
  streams.add(stream);
  stream.on('error', () => undefined);
  stream.on('close', () => streams.delete(stream));
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.resume(); // the request message is not needed
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
}

async function listen(): Promise<number> {
  if (mode === 'node-h2c') {
    const server = http2.createServer();
    server.on('stream', (stream, headers) => hold(stream, headers));
    server.on('session', (session) => session.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }
  const listenerModule = fileURLToPath(
    new URL('../../dist/server/src/platform/server/one-port-listener.js', import.meta.url),
  );
  const { createOnePortListener } = (await import(listenerModule)) as {
    createOnePortListener: typeof CreateOnePortListener;
  };
  const listener = createOnePortListener({
    handler: (_req, res) => res.end(),
    onHttp2Stream: (stream, headers) => {
      hold(stream, headers);
      return true;
    },
  });
  const address = await listener.listen(0, '127.0.0.1');
  return address.port;
}

const gc = (globalThis as { gc?: () => void }).gc;
exitWithParent(() => undefined);
process.on('message', (message: { type: string; seq?: number; key?: string; file?: string }) => {
  if (message.type === 'snapshot') {
    sendToParent({ type: 'snapshot', file: v8.writeHeapSnapshot(message.file) });
  } else if (message.type === 'memory') {
    gc?.();
    gc?.();
    sendToParent({ type: 'memory', usage: process.memoryUsage(), streams: streams.size });
  } else if (message.type === 'broadcast') {
    const body = toBinary(
      SubscriptionEventSchema,
      create(SubscriptionEventSchema, {
        events: [
          create(SubscriptionEvent_ConfigEventSchema, {
            key: message.key ?? '',
            value: `change-${message.seq ?? 0}`,
            generation: (message.seq ?? 0) + 2,
            timestamp: timestampFromMicros(Date.now() * 1000),
            type: 1,
          }),
        ],
      }),
    );
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    const startedAt = nowMs();
    for (const stream of streams) stream.write(frame);
    sendToParent({ type: 'broadcast', seq: message.seq ?? 0, startedAt, writtenAt: nowMs() });
  }
});

void listen().then((port) => sendToParent({ type: 'listening', port, pid: process.pid }));
