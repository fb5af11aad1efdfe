import http2 from 'node:http2';
import { fromBinary } from '@bufbuild/protobuf';
import { StartSubscribeRequestSchema } from '@realtime-config/protocol';
import { AppError, errorTable, type ErrorCode } from '../../platform/errors.js';
import type { EventBatch } from './event-batch.js';
import { parseSubscribeRequest } from './subscribe-request.js';
import type { SubscriberSink, Subscriptions } from './subscriptions.js';

const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE, NGHTTP2_REFUSED_STREAM } = http2.constants;
/** A StartSubscribe request is a few dozen bytes; anything much larger is not one. */
const MAX_REQUEST_BYTES = 64 * 1024;

export interface NativeSubscribeOptions {
  readonly subscriptions: Subscriptions;
  readonly logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Bytes a stream may have waiting in its write buffer before its subscriber counts as too slow. */
  readonly maxBufferedBytes: number;
}

/** True for a native gRPC call (not gRPC-Web) of StartSubscribe, whatever the package prefix. */
export function isNativeSubscribe(headers: http2.IncomingHttpHeaders, canonicalPath: string): boolean {
  const contentType = headers[HTTP2_HEADER_CONTENT_TYPE] ?? '';
  return (
    canonicalPath.endsWith('/StartSubscribe') &&
    headers[':method'] === 'POST' &&
    (contentType === 'application/grpc' || contentType === 'application/grpc+proto')
  );
}

/**
 * The fan-out fast path: serves StartSubscribe on the raw HTTP/2 stream, writing each change's
 * pre-encoded gRPC frame (shared by every subscriber of the version) straight to the stream.
 * A generic streaming handler would allocate and encode per subscriber; at thousands of streams
 * that is most of the cost (see DESIGN.md, "Fan-out").
 */
export function serveNativeSubscribe(stream: http2.ServerHttp2Stream, options: NativeSubscribeOptions): void {
  let headersSent = false;
  let finished = false;
  let subscription: { close(): void } | undefined;
  let trailers: { 'grpc-status': string; 'grpc-message'?: string } = { 'grpc-status': '0' };

  const sendHeaders = (): void => {
    if (headersSent || finished || stream.destroyed) return;
    headersSent = true;
    stream.respond(
      { [HTTP2_HEADER_STATUS]: 200, [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc', 'grpc-accept-encoding': 'identity' },
      { waitForTrailers: true },
    );
  };

  const finish = (code: ErrorCode | 'OK', message?: string): void => {
    if (finished) return;
    finished = true;
    subscription?.close();
    if (stream.destroyed || stream.closed) return;
    const status = code === 'OK' ? '0' : String(errorTable[code].grpcCode);
    const encoded = message !== undefined ? encodeURIComponent(message) : undefined;
    if (!headersSent) {
      // Trailers-only answer: the status travels in the only HEADERS frame.
      headersSent = true;
      stream.respond(
        {
          [HTTP2_HEADER_STATUS]: 200,
          [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
          'grpc-status': status,
          ...(encoded !== undefined ? { 'grpc-message': encoded } : {}),
        },
        { endStream: true },
      );
      return;
    }
    trailers = { 'grpc-status': status, ...(encoded !== undefined ? { 'grpc-message': encoded } : {}) };
    stream.end();
  };

  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  stream.on('close', () => {
    finished = true;
    subscription?.close();
  });
  stream.on('error', () => undefined); // a reset by the peer ends it through 'close'

  const sink: SubscriberSink = {
    deliver(batch: EventBatch): boolean {
      if (finished || stream.destroyed) return false;
      sendHeaders();
      if (stream.writableLength > options.maxBufferedBytes) {
        // The client stopped reading: stop buffering for it. Trailers would wait behind the full
        // buffer, so the stream is reset; gRPC clients report REFUSED_STREAM as UNAVAILABLE and
        // reconnect with their last timestamp.
        finished = true;
        subscription?.close();
        stream.close(NGHTTP2_REFUSED_STREAM);
        return false;
      }
      stream.write(batch.frame());
      return true;
    },
    end: (code, message) => finish(code, message),
  };

  const chunks: Buffer[] = [];
  let size = 0;
  let started = false;
  const start = async (): Promise<void> => {
    if (started) return;
    started = true;
    try {
      const body = Buffer.concat(chunks, size);
      if (body.length < 5) throw AppError.invalid('The request has no message.');
      if (body[0] !== 0) throw new AppError('INVALID_ARGUMENT', 'Compressed requests are not supported.');
      const length = body.readUInt32BE(1);
      if (body.length < 5 + length) throw AppError.invalid('The request message is incomplete.');
      let request;
      try {
        request = fromBinary(StartSubscribeRequestSchema, body.subarray(5, 5 + length));
      } catch {
        throw AppError.invalid('The request is not a StartSubscribeRequest.');
      }
      const parsed = parseSubscribeRequest(request);
      const opened = await options.subscriptions.open(parsed.serviceId, parsed.versionId, parsed.afterTimestamp, sink);
      if (finished) opened.close();
      else {
        subscription = opened;
        sendHeaders(); // the stream is established even when there is no backfill
      }
    } catch (error) {
      if (error instanceof AppError && error.code !== 'INTERNAL') finish(error.code, error.message);
      else {
        options.logger.error({ err: error }, 'StartSubscribe failed');
        finish('INTERNAL', 'An unexpected error occurred. It has been logged.');
      }
    }
  };

  stream.on('data', (chunk: Buffer) => {
    if (started) return;
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) {
      started = true;
      finish('INVALID_ARGUMENT', 'The request is too large.');
      return;
    }
    chunks.push(chunk);
    // Server streaming: the client sends one message and half-closes, but some clients keep the
    // request open; start as soon as one whole message is there.
    const body = size >= 5 ? Buffer.concat(chunks, size) : null;
    if (body && body.length >= 5 + body.readUInt32BE(1)) void start();
  });
  stream.on('end', () => void start());
}
