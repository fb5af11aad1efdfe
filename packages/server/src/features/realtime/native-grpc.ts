import http2 from 'node:http2';
import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { AppError, errorTable, type ErrorCode } from '../../platform/errors.js';

const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE } = http2.constants;
/** Requests of this service are a few dozen bytes; anything much larger is not one of them. */
const MAX_REQUEST_BYTES = 64 * 1024;

export interface NativeLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** True for a native gRPC call (not gRPC-Web, not the Connect protocol). */
export function isNativeGrpc(headers: http2.IncomingHttpHeaders): boolean {
  const contentType = headers[HTTP2_HEADER_CONTENT_TYPE] ?? '';
  return (
    headers[':method'] === 'POST' && (contentType === 'application/grpc' || contentType === 'application/grpc+proto')
  );
}

/** Prefixes a message with the gRPC frame header: flag 0 (not compressed), 4-byte big-endian length. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(5 + message.length);
  new DataView(frame.buffer).setUint32(1, message.length);
  frame.set(message, 5);
  return frame;
}

/**
 * One native gRPC call on a raw HTTP/2 stream: reads the single request message, answers headers,
 * frames and trailers. Calls on the hot paths (StartSubscribe, GetConfig) are served this way;
 * everything else goes through Connect-ES.
 */
export class NativeGrpcCall {
  private headersSent = false;
  private finished = false;
  private chunks: Buffer[] | null = [];
  private size = 0;
  private trailers: http2.OutgoingHttpHeaders = { 'grpc-status': '0' };
  private onRequest: ((body: Buffer) => void) | null = null;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    private readonly logger: NativeLogger,
  ) {
    stream.on('wantTrailers', () => stream.sendTrailers(this.trailers));
    stream.on('error', () => undefined); // a reset by the peer ends the call through 'close'
  }

  get isFinished(): boolean {
    return this.finished || this.stream.destroyed;
  }

  /** Reads the request message and decodes it; INVALID_ARGUMENT when it is not one. */
  readRequest<D extends DescMessage>(schema: D): Promise<MessageShape<D>> {
    return new Promise((resolve, reject) => {
      this.onRequest = (body) => {
        try {
          if (body.length < 5) throw AppError.invalid('The request has no message.');
          if (body[0] !== 0) throw AppError.invalid('Compressed requests are not supported.');
          const length = body.readUInt32BE(1);
          if (body.length < 5 + length) throw AppError.invalid('The request message is incomplete.');
          try {
            resolve(fromBinary(schema, body.subarray(5, 5 + length)));
          } catch {
            throw AppError.invalid(`The request is not a ${schema.name}.`);
          }
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      const onData = (chunk: Buffer): void => {
        if (!this.chunks) return;
        this.size += chunk.length;
        if (this.size > MAX_REQUEST_BYTES) {
          this.complete();
          reject(AppError.invalid('The request is too large.'));
          return;
        }
        this.chunks.push(chunk);
        // Server streaming clients send one message and usually half-close, but some keep the
        // request open: start as soon as one whole message is there.
        if (this.size >= 5) {
          const body = Buffer.concat(this.chunks, this.size);
          if (body.length >= 5 + body.readUInt32BE(1)) this.complete(body);
        }
      };
      this.stream.on('data', onData);
      this.stream.once('end', () => this.complete());
    });
  }

  private complete(body?: Buffer): void {
    const chunks = this.chunks;
    if (!chunks) return;
    this.chunks = null; // the request buffers are not kept for the life of a long stream
    this.stream.removeAllListeners('data');
    this.stream.resume();
    const handler = this.onRequest;
    this.onRequest = null;
    handler?.(body ?? Buffer.concat(chunks, this.size));
  }

  sendHeaders(): void {
    if (this.headersSent || this.isFinished) return;
    this.headersSent = true;
    this.stream.respond(
      {
        [HTTP2_HEADER_STATUS]: 200,
        [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        'grpc-accept-encoding': 'identity',
      },
      { waitForTrailers: true },
    );
  }

  write(frame: Uint8Array): void {
    this.sendHeaders();
    this.stream.write(frame);
  }

  /** Ends the call with a status; before any message this is a trailers-only answer. */
  finish(code: ErrorCode | 'OK', message?: string): void {
    if (this.finished) return;
    this.finished = true;
    if (this.stream.destroyed || this.stream.closed) return;
    const status = code === 'OK' ? '0' : String(errorTable[code].grpcCode);
    const statusHeaders: http2.OutgoingHttpHeaders = {
      'grpc-status': status,
      ...(message !== undefined ? { 'grpc-message': encodeURIComponent(message) } : {}),
    };
    if (!this.headersSent) {
      this.headersSent = true;
      this.stream.respond(
        { [HTTP2_HEADER_STATUS]: 200, [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc', ...statusHeaders },
        { endStream: true },
      );
      return;
    }
    this.trailers = statusHeaders;
    this.stream.end();
  }

  /** Ends the call with the status of any error; unexpected ones are logged and answered INTERNAL. */
  fail(error: unknown, what: string): void {
    if (error instanceof AppError && error.code !== 'INTERNAL') {
      this.finish(error.code, error.message);
      return;
    }
    this.logger.error({ err: error }, `${what} failed`);
    this.finish('INTERNAL', 'An unexpected error occurred. It has been logged.');
  }

  /** Resets the stream without trailers: for a client that stopped reading. */
  reset(code: number): void {
    this.finished = true;
    if (!this.stream.destroyed) this.stream.close(code);
  }
}
