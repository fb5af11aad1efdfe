/**
 * gRPC over raw node:http2 for the load generators: one length-prefixed message per frame (1 byte
 * compressed flag, 4 bytes big-endian length, the message). Far lighter per connection than a
 * grpc-js channel, so a worker process can hold thousands of subscriber connections.
 */
import http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  SERVICE_PATH,
  StartSubscribeRequestSchema,
  SubscriptionEventSchema,
  microsFromTimestamp,
  timestampFromMicros,
} from '@realtime-config/protocol';
import { Receipts } from './receipts.js';
import { exitWithParent } from './worker-process.js';

export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

export function grpcHeaders(method: string): http2.OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': `${SERVICE_PATH}/${method}`,
    'content-type': 'application/grpc',
    te: 'trailers',
  };
}

/**
 * Who a load generator's subscribers say they are: subscriber `g` (counted over every worker) is
 * instance `<idPrefix><g>` with the label `<labelKey>=<labelValues[g mod length]>` (x-rc-instance-id,
 * x-rc-labels), as an SDK with `instanceId` and `labels` sends them.
 */
export interface SubscriberIdentity {
  readonly idPrefix: string;
  readonly labelKey: string;
  readonly labelValues: readonly string[];
}

export const instanceIdOf = (identity: SubscriberIdentity, g: number): string => `${identity.idPrefix}${g}`;

export const labelOf = (identity: SubscriberIdentity, g: number): string =>
  identity.labelValues[g % identity.labelValues.length] ?? '';

/** The request headers of subscriber `g`'s call: grpcHeaders plus its instance id and label. */
export function instanceHeaders(method: string, identity: SubscriberIdentity, g: number): http2.OutgoingHttpHeaders {
  return {
    ...grpcHeaders(method),
    'x-rc-instance-id': instanceIdOf(identity, g),
    'x-rc-labels': `${encodeURIComponent(identity.labelKey)}=${encodeURIComponent(labelOf(identity, g))}`,
  };
}

/**
 * Splits a stream's DATA chunks into whole gRPC frames (a chunk may hold several frames or part
 * of one). Frames are returned as views of the chunk when they lie inside it.
 */
export class FrameReader {
  private pending: Buffer | null = null;

  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let buffer = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    while (buffer.length >= 5) {
      const end = 5 + buffer.readUInt32BE(1);
      if (buffer.length < end) break;
      onFrame(buffer.subarray(0, end));
      buffer = buffer.subarray(end);
    }
    if (buffer.length > 0) this.pending = Buffer.from(buffer);
  }
}

/**
 * One HTTP/2 connection (h2c) to the server, with the error handler every session needs;
 * `localAddress` (another loopback address, 127.0.0.2 …) gives a load generator its own range of
 * source ports, so tens of thousands of connections do not run out of them.
 */
export function connectH2c(url: string, localAddress?: string): http2.ClientHttp2Session {
  const session = http2.connect(url, { settings: { enablePush: false }, ...(localAddress ? { localAddress } : {}) });
  session.on('error', () => undefined); // reported through the stream or 'close'
  return session;
}

/** The one request message of a StartSubscribe call, framed: changes of a version after `afterUs`. */
export function subscribeRequest(serviceId: string, versionId: string, afterUs: number): Buffer {
  return grpcFrame(
    toBinary(
      StartSubscribeRequestSchema,
      create(StartSubscribeRequestSchema, { serviceId, versionId, timestamp: timestampFromMicros(afterUs) }),
    ),
  );
}

/**
 * The change numbers (`change-<seq>` values of `key`) and the newest timestamp (µs) in a
 * SubscriptionEvent frame. The server writes the same bytes to every stream, so the last distinct
 * frame's answer is kept and reused for identical frames instead of decoding each again.
 */
export class ChangeDecoder {
  private lastFrame: Buffer | null = null;
  private last: { seqs: number[]; newestUs: number } = { seqs: [], newestUs: 0 };
  decoded = 0;

  constructor(private readonly key: string) {}

  read(frame: Buffer): { readonly seqs: readonly number[]; readonly newestUs: number } {
    if (this.lastFrame?.equals(frame)) return this.last;
    this.decoded++;
    const event = fromBinary(SubscriptionEventSchema, frame.subarray(5));
    const seqs: number[] = [];
    let newestUs = 0;
    for (const e of event.events) {
      if (e.timestamp) newestUs = Math.max(newestUs, microsFromTimestamp(e.timestamp));
      const seq = e.key === this.key ? Receipts.seqOf(e.value) : -1;
      if (seq >= 0) seqs.push(seq);
    }
    this.lastFrame = Buffer.from(frame);
    this.last = { seqs, newestUs };
    return this.last;
  }
}

/**
 * A load generator's connections, all destroyed when the driver goes away (it exits or says so);
 * `closing` is true from then on, so streams that end are not reconnected or counted as lost.
 */
export class WorkerSessions {
  readonly sessions: http2.ClientHttp2Session[] = [];
  closing = false;

  constructor() {
    exitWithParent(() => {
      this.closing = true;
      for (const session of this.sessions) session?.destroy();
    });
  }
}
