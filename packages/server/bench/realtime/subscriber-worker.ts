/**
 * A subscriber load-generator process: opens `subscribers` StartSubscribe streams, each on its own
 * HTTP/2 connection (one per application instance, as deployments look), and records when each
 * change reached each subscriber. The driver (fanout.ts) starts it through worker-process.ts.
 *
 * A change is recognised by its value: the benchmark entry's rawValue is `change-<seq>`. The receipt
 * time is taken first thing in the DATA callback, before any parsing. Every distinct frame is decoded
 * with fromBinary once per worker; identical frames for other subscribers are compared byte for byte
 * and reuse that decoding (the server writes the same bytes to every stream).
 */
import { nowMs } from './common.js';
import { Receipts } from './receipts.js';
import {
  ChangeDecoder,
  FrameReader,
  WorkerSessions,
  connectH2c,
  grpcHeaders,
  instanceHeaders,
  subscribeRequest,
  type SubscriberIdentity,
} from './grpc-wire.js';
import { sendToParent } from './worker-process.js';

export interface SubscriberStart {
  readonly type: 'start';
  readonly url: string;
  readonly serviceId: string;
  readonly versionId: string;
  /** Only changes after this (µs since the epoch): no backfill for a subscriber that is up to date. */
  readonly afterTimestampUs: number;
  readonly key: string;
  readonly subscribers: number;
  /** Highest change sequence number + 1 (the receipts array has one row per change). */
  readonly maxChanges: number;
  /** Connections being opened at once. */
  readonly concurrency: number;
  /** Instance ids and labels the streams declare, this worker's first being subscriber `first`; none when absent. */
  readonly identity?: SubscriberIdentity & { readonly first: number };
}

export type SubscriberWorkerMessage =
  | { type: 'alive' }
  | {
      type: 'ready';
      opened: number;
      failed: number;
      firstError: string;
      openMs: number;
      /** process.memoryUsage() after a full GC, before and after opening (workers run with --expose-gc). */
      memory?: { before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage };
    }
  | { type: 'complete'; seq: number }
  | {
      type: 'report';
      subscribers: number;
      /** receipts[seq * subscribers + i]: monotonic ms when subscriber i received change seq; NaN if never. */
      receipts: Float64Array;
      /** Streams that ended while the benchmark still expected changes. */
      endedEarly: number;
      endedStatuses: string;
      decodedFrames: number;
      unexpectedFrames: number;
    };

const workerSessions = new WorkerSessions();

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void start(message as SubscriberStart);
});

async function start(options: SubscriberStart): Promise<void> {
  const n = options.subscribers;
  const receipts = new Receipts(n, options.maxChanges);
  const live = new Uint8Array(n);
  let opened = 0;
  let failed = 0;
  let firstError = '';
  let endedEarly = 0;
  const endedStatuses = new Map<string, number>();
  let unexpectedFrames = 0;

  const decoder = new ChangeDecoder(options.key);
  const onFrame = (i: number, frame: Buffer, at: number): void => {
    const { seqs } = decoder.read(frame);
    if (seqs.length === 0) unexpectedFrames++;
    for (const seq of seqs) receipts.record(i, seq, at, opened);
  };

  const request = subscribeRequest(options.serviceId, options.versionId, options.afterTimestampUs);

  const openOne = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const session = connectH2c(options.url);
      workerSessions.sessions[i] = session;
      const { identity } = options;
      const stream = session.request(
        identity ? instanceHeaders('StartSubscribe', identity, identity.first + i) : grpcHeaders('StartSubscribe'),
      );
      const reader = new FrameReader();
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        failed++;
        firstError ||= why;
        session.destroy();
        resolve();
      };
      stream.on('response', (headers) => {
        if (headers['grpc-status'] !== undefined) {
          fail(
            `trailers-only answer: grpc-status ${String(headers['grpc-status'])} ${String(headers['grpc-message'] ?? '')}`,
          );
          return;
        }
        if (settled) return;
        settled = true;
        live[i] = 1;
        opened++;
        resolve();
      });
      stream.on('data', (chunk: Buffer) => {
        const at = nowMs();
        reader.push(chunk, (frame) => onFrame(i, frame, at));
      });
      stream.on('trailers', (trailers) => {
        const status = `${String(trailers['grpc-status'])} ${decodeURIComponent(String(trailers['grpc-message'] ?? ''))}`;
        endedStatuses.set(status, (endedStatuses.get(status) ?? 0) + 1);
      });
      stream.on('error', (error: Error) => fail(error.message));
      stream.on('close', () => {
        if (!settled) fail(`stream closed before its headers (code ${stream.rstCode ?? '?'})`);
        else if (live[i] && !workerSessions.closing) {
          live[i] = 0;
          endedEarly++;
        }
      });
      stream.end(request);
    });

  const began = nowMs();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, n) }, async () => {
      while (next < n) await openOne(next++);
    }),
  );
  sendToParent({ type: 'ready', opened, failed, firstError, openMs: nowMs() - began });

  receipts.answerReports(() => ({
    endedEarly,
    endedStatuses: [...endedStatuses].map(([status, count]) => `${count}× ${status}`).join('; '),
    decodedFrames: decoder.decoded,
    unexpectedFrames,
  }));
}

sendToParent({ type: 'alive' });
