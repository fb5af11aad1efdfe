/**
 * A reconnect-storm load generator (storm.ts): `subscribers` StartSubscribe streams, one HTTP/2
 * connection each, that reconnect when their stream ends, from the timestamp of the last change
 * they saw, as the SDK does: after `nextDelay` (policy `jitter`, the SDK's rule) or after exactly
 * `intervalMs` (policy `fixed`, the loop without jitter). Records every connection attempt, every
 * stream that opened, and how often each subscriber received each change.
 */
import type http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  StartSubscribeRequestSchema,
  SubscriptionEventSchema,
  microsFromTimestamp,
  timestampFromMicros,
} from '@realtime-config/protocol';
import { nextDelay } from '../../../client/src/reconnect.js';
import { nowMs } from './common.js';
import { FrameReader, connectH2c, grpcFrame, grpcHeaders } from './grpc-wire.js';
import { Receipts } from './receipts.js';
import { exitWithParent, sendToParent } from './worker-process.js';

export interface StormStart {
  readonly type: 'start';
  readonly url: string;
  readonly serviceId: string;
  readonly versionId: string;
  readonly afterTimestampUs: number;
  readonly key: string;
  readonly subscribers: number;
  readonly maxChanges: number;
  readonly policy: 'jitter' | 'fixed';
  readonly intervalMs: number;
}

export type StormWorkerMessage =
  | { type: 'alive' }
  | { type: 'ready'; opened: number }
  | { type: 'count'; seq: number; have: number }
  | {
      type: 'report';
      /** Monotonic ms of every connection attempt after the first. */
      attempts: Float64Array;
      /** Monotonic ms of every stream that opened after the first. */
      opens: Float64Array;
      /** counts[i * maxChanges + seq]: how often subscriber i received change seq. */
      counts: Int32Array;
    };

const sessions: http2.ClientHttp2Session[] = [];
let closing = false;
exitWithParent(() => {
  closing = true;
  for (const session of sessions) session?.destroy();
});

process.on('message', (message: { type: string; seq?: number }) => {
  if (message.type === 'start') start(message as StormStart);
  else if (message.type === 'count')
    sendToParent({ type: 'count', seq: message.seq ?? 0, have: have(message.seq ?? 0) });
  else if (message.type === 'report') report();
});

let counts = new Int32Array(0);
let maxChanges = 0;
let total = 0;
const attempts: number[] = [];
const opens: number[] = [];

function have(seq: number): number {
  let n = 0;
  for (let i = 0; i < total; i++) if ((counts[i * maxChanges + seq] ?? 0) > 0) n++;
  return n;
}

function report(): void {
  sendToParent({ type: 'report', attempts: Float64Array.from(attempts), opens: Float64Array.from(opens), counts });
}

function start(options: StormStart): void {
  total = options.subscribers;
  maxChanges = options.maxChanges;
  counts = new Int32Array(total * maxChanges);
  const lastUs = new Float64Array(total).fill(options.afterTimestampUs);
  const failures = new Int32Array(total);
  const everOpened = new Uint8Array(total);
  let opened = 0;

  const connect = (i: number): void => {
    if (closing) return;
    if (everOpened[i]) attempts.push(nowMs());
    const session = connectH2c(options.url);
    sessions[i] = session;
    const stream = session.request(grpcHeaders('StartSubscribe'));
    const reader = new FrameReader();
    let over = false;
    const retry = (): void => {
      if (over) return;
      over = true;
      session.destroy();
      failures[i] = (failures[i] ?? 0) + 1;
      const wait =
        options.policy === 'jitter' ? nextDelay(failures[i] ?? 1, options.intervalMs, Math.random) : options.intervalMs;
      setTimeout(() => connect(i), wait);
    };
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) return; // trailers-only: refused
      failures[i] = 0;
      if (everOpened[i]) opens.push(nowMs());
      else {
        everOpened[i] = 1;
        if (++opened === total) sendToParent({ type: 'ready', opened });
      }
    });
    stream.on('data', (chunk: Buffer) =>
      reader.push(chunk, (frame) => {
        const event = fromBinary(SubscriptionEventSchema, frame.subarray(5));
        for (const e of event.events) {
          if (e.timestamp) lastUs[i] = Math.max(lastUs[i] ?? 0, microsFromTimestamp(e.timestamp));
          const seq = e.key === options.key ? Receipts.seqOf(e.value) : -1;
          if (seq >= 0 && seq < maxChanges) counts[i * maxChanges + seq] = (counts[i * maxChanges + seq] ?? 0) + 1;
        }
      }),
    );
    stream.on('error', retry);
    stream.on('close', retry);
    session.on('close', retry);
    stream.end(
      grpcFrame(
        toBinary(
          StartSubscribeRequestSchema,
          create(StartSubscribeRequestSchema, {
            serviceId: options.serviceId,
            versionId: options.versionId,
            timestamp: timestampFromMicros(lastUs[i] ?? 0),
          }),
        ),
      ),
    );
  };

  // Opened in small steps so the first connections do not storm the server themselves.
  let next = 0;
  const step = (): void => {
    for (let k = 0; k < 100 && next < total; k++) connect(next++);
    if (next < total) setTimeout(step, 50);
  };
  step();
  sendToParent({ type: 'alive' });
}
