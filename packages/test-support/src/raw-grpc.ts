import http2 from 'node:http2';
import net from 'node:net';
import { gzipSync } from 'node:zlib';

export interface RawGrpcAnswer {
  readonly httpStatus: number;
  /** `grpc-status` from the trailers (or from the headers of a trailers-only answer). */
  readonly grpcStatus: number | undefined;
  /** `grpc-message` exactly as it came over the wire, not decoded. */
  readonly rawMessage: string | undefined;
  /** The response's DATA bytes. */
  readonly body: Buffer;
}

/** A gRPC length-prefixed message; `compressed` gzips it and sets the flag. */
export function frameOf(message: Uint8Array, compressed = false): Buffer {
  const payload = compressed ? gzipSync(message) : Buffer.from(message);
  const frame = Buffer.alloc(5 + payload.length);
  frame[0] = compressed ? 1 : 0;
  frame.writeUInt32BE(payload.length, 1);
  payload.copy(frame, 5);
  return frame;
}

/**
 * One native gRPC call over h2c with bytes chosen by the test (malformed, compressed, oversized),
 * which no gRPC library would send. Resolves with the status once the server ends the call, even
 * when the server stopped reading the request.
 */
export function rawGrpcCall(
  baseUrl: string,
  path: string,
  body: Buffer,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<RawGrpcAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(baseUrl);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let httpStatus = 0;
    let status: string | undefined;
    let message: string | undefined;
    const chunks: Buffer[] = [];
    const take = (h: http2.IncomingHttpHeaders): void => {
      if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) message = String(h['grpc-message']);
    };
    stream.on('response', (h) => {
      httpStatus = Number(h[':status']);
      take(h);
    });
    stream.on('trailers', take);
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => undefined); // the server may reset a stream it stopped reading
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      // The answer is complete; a request the server stopped reading is abandoned.
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      session.destroy();
      resolve({
        httpStatus,
        grpcStatus: status === undefined ? undefined : Number(status),
        rawMessage: message,
        body: Buffer.concat(chunks),
      });
    };
    stream.on('end', settle);
    stream.on('close', settle);
    stream.end(body);
  });
}

/**
 * An h2c connection to the server from `localAddress` (any 127.x.y.z is loopback on Linux, so a test
 * can be several client addresses at once). Errors are reported through its streams.
 */
export function rawSession(baseUrl: string, localAddress = '127.0.0.1'): http2.ClientHttp2Session {
  const { hostname, port } = new URL(baseUrl);
  const session = http2.connect(baseUrl, {
    createConnection: () => net.connect({ host: hostname, port: Number(port), localAddress }),
  });
  session.on('error', () => undefined);
  return session;
}

/** How the server answered a raw stream: it established it, or ended it at once with a status. */
export interface RawStreamOutcome {
  /** True when the server answered headers without a status: the stream is open. */
  readonly open: boolean;
  /** The status of a stream the server ended (a trailers-only answer or trailers). */
  readonly grpcStatus: number | undefined;
  /** `retry-after-ms` of an ended stream, as a number. */
  readonly retryAfterMs: number | undefined;
  readonly rawMessage: string | undefined;
}

/** A long-lived call (StartSubscribe) on a raw HTTP/2 session: far cheaper than a gRPC library's. */
export interface RawStream {
  /** Resolves once the server established the stream or ended it. */
  readonly outcome: Promise<RawStreamOutcome>;
  /** Bytes of DATA received (events). */
  readonly received: () => number;
  /** Resolves when the stream has closed, however. */
  readonly closed: Promise<void>;
  /** Cancels the call (RST_STREAM CANCEL), as a client going away does. */
  close(): void;
}

/** Opens a native gRPC call with the request `body` (one framed message) on `session`, and keeps it open. */
export function openRawStream(
  session: http2.ClientHttp2Session,
  path: string,
  body: Buffer,
  headers: http2.OutgoingHttpHeaders = {},
): RawStream {
  const stream = session.request({
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...headers,
  });
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
  stream.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  const outcome = new Promise<RawStreamOutcome>((resolve) => {
    const ended = (h: http2.IncomingHttpHeaders): void => {
      const retry = h['retry-after-ms'];
      resolve({
        open: false,
        grpcStatus: Number(h['grpc-status']),
        retryAfterMs: retry === undefined ? undefined : Number(retry),
        rawMessage: h['grpc-message'] === undefined ? undefined : String(h['grpc-message']),
      });
    };
    stream.on('response', (h) => {
      if (h['grpc-status'] !== undefined) ended(h);
      else resolve({ open: true, grpcStatus: undefined, retryAfterMs: undefined, rawMessage: undefined });
    });
    stream.on('trailers', ended);
    stream.once('close', () =>
      resolve({ open: false, grpcStatus: undefined, retryAfterMs: undefined, rawMessage: 'closed without a status' }),
    );
  });
  stream.end(body);
  return {
    outcome,
    received: () => bytes,
    closed,
    close() {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    },
  };
}
