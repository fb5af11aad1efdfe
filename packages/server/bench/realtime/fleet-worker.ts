/**
 * A fleet load generator (fleet.ts): `subscribers` StartSubscribe streams to one server instance,
 * one HTTP/2 connection each from its own loopback source address, that reconnect when their
 * stream ends, from the timestamp of the last change they saw, as the SDK does: after `nextDelay`
 * (policy `jitter`, the SDK's rule) or after exactly `intervalMs` (policy `fixed`, the loop without
 * jitter). Records when each subscriber first received each change and how often, every connection
 * attempt and every stream that reopened.
 */
import { nextDelay } from '../../../client/src/reconnect.js';
import { nowMs } from './common.js';
import { ChangeDecoder, FrameReader, WorkerSessions, connectH2c, grpcHeaders, subscribeRequest } from './grpc-wire.js';
import { Receipts } from './receipts.js';
import { sendToParent } from './worker-process.js';

export type ReconnectPolicy = 'jitter' | 'fixed';

export interface FleetStart {
  readonly type: 'start';
  readonly url: string;
  readonly localAddress: string;
  readonly serviceId: string;
  readonly versionId: string;
  readonly afterTimestampUs: number;
  readonly key: string;
  readonly subscribers: number;
  readonly maxChanges: number;
  readonly policy: ReconnectPolicy;
  readonly intervalMs: number;
}

export type FleetWorkerMessage =
  | { type: 'alive' }
  | { type: 'ready'; opened: number }
  /** Every subscriber of this worker has change `seq`. */
  | { type: 'complete'; seq: number }
  | {
      type: 'report';
      /** receipts[seq * subscribers + i]: monotonic ms of subscriber i's first receipt of change seq; NaN if never. */
      receipts: Float64Array;
      /** counts[seq * subscribers + i]: how often subscriber i received change seq. */
      counts: Int32Array;
      /** Monotonic ms of every connection attempt after a stream ended, since the last report. */
      attempts: Float64Array;
      /** Monotonic ms of every stream that reopened, since the last report. */
      opens: Float64Array;
    };

const workerSessions = new WorkerSessions();

let run: ReturnType<typeof start> | undefined;
process.on('message', (message: { type: string; policy?: ReconnectPolicy }) => {
  if (message.type === 'start') run = start(message as FleetStart);
  else if (message.type === 'policy' && run && message.policy) run.policy = message.policy;
  else if (message.type === 'report' && run) run.report();
});

function start(options: FleetStart) {
  const total = options.subscribers;
  const receipts = new Receipts(total, options.maxChanges);
  const counts = new Int32Array(total * options.maxChanges);
  const lastUs = new Float64Array(total).fill(options.afterTimestampUs);
  const failures = new Int32Array(total);
  const everOpened = new Uint8Array(total);
  const decoder = new ChangeDecoder(options.key);
  let attempts: number[] = [];
  let opens: number[] = [];
  let opened = 0;
  const state = {
    policy: options.policy,
    report(): void {
      sendToParent({
        type: 'report',
        receipts: receipts.times,
        counts,
        attempts: Float64Array.from(attempts),
        opens: Float64Array.from(opens),
      });
      attempts = [];
      opens = [];
    },
  };

  const connect = (i: number): void => {
    if (workerSessions.closing) return;
    if (everOpened[i]) attempts.push(nowMs());
    const session = connectH2c(options.url, options.localAddress);
    workerSessions.sessions[i] = session;
    const stream = session.request(grpcHeaders('StartSubscribe'));
    const reader = new FrameReader();
    let over = false;
    const retry = (): void => {
      if (over) return;
      over = true;
      session.destroy();
      failures[i] = (failures[i] ?? 0) + 1;
      const wait =
        state.policy === 'jitter' ? nextDelay(failures[i] ?? 1, options.intervalMs, Math.random) : options.intervalMs;
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
    stream.on('data', (chunk: Buffer) => {
      const at = nowMs();
      reader.push(chunk, (frame) => {
        const { seqs, newestUs } = decoder.read(frame);
        lastUs[i] = Math.max(lastUs[i] ?? 0, newestUs);
        for (const seq of seqs) {
          if (seq >= options.maxChanges) continue;
          counts[seq * total + i] = (counts[seq * total + i] ?? 0) + 1;
          receipts.record(i, seq, at, total);
        }
      });
    });
    stream.on('error', retry);
    stream.on('close', retry);
    session.on('close', retry);
    stream.end(subscribeRequest(options.serviceId, options.versionId, lastUs[i] ?? 0));
  };

  // Opened in small steps so the first connections do not storm the server themselves.
  let next = 0;
  const step = (): void => {
    for (let k = 0; k < 100 && next < total; k++) connect(next++);
    if (next < total) setTimeout(step, 50);
  };
  step();
  return state;
}

sendToParent({ type: 'alive' });
