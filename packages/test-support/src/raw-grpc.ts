import http2 from 'node:http2';
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
