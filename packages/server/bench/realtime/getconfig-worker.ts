/**
 * A GetConfig load-generator process: `callers` concurrent callers, each on its own HTTP/2
 * connection, each sending unary GetConfig calls back to back (raw node:http2, gRPC framing).
 * Calls that start inside the measured window are timed from request to trailers.
 */
import type http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { GetConfigRequestSchema, GetConfigResponseSchema } from '@realtime-config/protocol';
import { nowMs } from './common.js';
import { connectH2c, grpcFrame, grpcHeaders } from './grpc-wire.js';
import { exitWithParent, sendToParent } from './worker-process.js';

export interface GetConfigStart {
  readonly type: 'start';
  readonly url: string;
  readonly serviceId: string;
  readonly label: string;
  readonly callers: number;
  /** Monotonic ms (shared clock): the measured window is [measureFrom, measureUntil). */
  readonly measureFrom: number;
  readonly measureUntil: number;
  readonly expectedEntries: number;
}

export type GetConfigWorkerMessage =
  | { type: 'alive' }
  | { type: 'connected' }
  | {
      type: 'done';
      /** Latency (ms) of every call that started inside the window. */
      latencies: Float64Array;
      /** When the last call that started inside the window ended. */
      lastEnd: number;
      errors: number;
      firstError: string;
      responseBytes: number;
    };

const sessions: http2.ClientHttp2Session[] = [];
exitWithParent(() => {
  for (const session of sessions) session.destroy();
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void run(message as GetConfigStart);
});

interface CallResult {
  ok: boolean;
  bytes: number;
  error?: string;
  body?: Buffer;
}

function call(session: http2.ClientHttp2Session, request: Buffer, keepBody: boolean): Promise<CallResult> {
  return new Promise((resolve) => {
    const stream = session.request(grpcHeaders('GetConfig'));
    const chunks: Buffer[] = [];
    let bytes = 0;
    let status: string | undefined;
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    });
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (keepBody) chunks.push(chunk);
    });
    stream.on('trailers', (trailers) => {
      status = String(trailers['grpc-status']);
    });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (status === '0') resolve({ ok: true, bytes, body: keepBody ? Buffer.concat(chunks) : undefined });
      else resolve({ ok: false, bytes, error: `grpc-status ${status ?? 'none'} (rst ${stream.rstCode})` });
    });
    stream.end(request);
  });
}

async function run(options: GetConfigStart): Promise<void> {
  const request = grpcFrame(
    toBinary(
      GetConfigRequestSchema,
      create(GetConfigRequestSchema, { serviceId: options.serviceId, version: options.label }),
    ),
  );
  for (let c = 0; c < options.callers; c++) sessions.push(connectH2c(options.url));

  // Check the answer once: the expected number of entries; later answers must have its size.
  const first = await call(sessions[0] as http2.ClientHttp2Session, request, true);
  if (!first.ok || !first.body) throw new Error(`GetConfig failed: ${first.error ?? ''}`);
  const decoded = fromBinary(GetConfigResponseSchema, first.body.subarray(5));
  if (decoded.entries.length !== options.expectedEntries) {
    throw new Error(`GetConfig answered ${decoded.entries.length} entries, expected ${options.expectedEntries}`);
  }
  const expectedBytes = first.bytes;
  sendToParent({ type: 'connected' });

  const latencies: number[] = [];
  let lastEnd = 0;
  let errors = 0;
  let firstError = '';
  await Promise.all(
    sessions.map(async (session) => {
      for (;;) {
        const startedAt = nowMs();
        if (startedAt >= options.measureUntil) return;
        const result = await call(session, request, false);
        const endedAt = nowMs();
        if (startedAt < options.measureFrom) continue;
        lastEnd = Math.max(lastEnd, endedAt);
        if (!result.ok || result.bytes !== expectedBytes) {
          errors++;
          firstError ||= result.error ?? `answer of ${result.bytes} bytes, expected ${expectedBytes}`;
          continue;
        }
        latencies.push(endedAt - startedAt);
      }
    }),
  );
  sendToParent({
    type: 'done',
    latencies: Float64Array.from(latencies),
    lastEnd,
    errors,
    firstError,
    responseBytes: expectedBytes,
  });
}

sendToParent({ type: 'alive' });
