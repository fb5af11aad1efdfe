import http2 from 'node:http2';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { AppError, errorTable, grpcMetadataOf, type ErrorCode } from '../../platform/errors.js';
import { credentialsFrom, type GrpcCredentials } from './grpc-authorizer.js';
import { encodeGrpcMessage } from './grpc-message.js';

const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE } = http2.constants;
const gunzipAsync = promisify(gunzip);

const tooLarge = (maxBytes: number): AppError =>
  new AppError('RESOURCE_EXHAUSTED', `The request message is larger than ${maxBytes} bytes.`);

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

/** Credentials of a native HTTP/2 call (a repeated header counts by its first value). */
export function credentialsOfHeaders(headers: http2.IncomingHttpHeaders): GrpcCredentials {
  return credentialsFrom((name) => {
    const value = name === 'host' ? (headers[':authority'] ?? headers.host) : headers[name];
    return Array.isArray(value) ? value[0] : value;
  });
}

/**
 * One native gRPC call on a raw HTTP/2 stream: reads the single request message, answers headers,
 * frames and trailers. Calls on the hot paths (StartSubscribe, GetConfig) are served this way;
 * everything else goes through Connect-ES.
 */
/** How long a client that is refused mid-request gets to read the answer before its stream is reset. */
const ABANDONED_REQUEST_RESET_MS = 1000;

/** The trailers of a call that ends well: one object for every call. */
const OK_TRAILERS: http2.OutgoingHttpHeaders = Object.freeze({ 'grpc-status': '0' });
const ignore = (): void => undefined;

export class NativeGrpcCall {
  private headersSent = false;
  private finished = false;
  /** The request was refused before it was read to its end (too large): the client must stop sending. */
  private requestAbandoned = false;
  private chunks: Buffer[] | null = [];
  private size = 0;
  private trailers: http2.OutgoingHttpHeaders = OK_TRAILERS;
  private onRequest: ((body: Buffer) => void) | null = null;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    private readonly logger: NativeLogger,
    /** The request's grpc-encoding header: how a compressed message is compressed. */
    private readonly requestEncoding?: string | string[],
  ) {
    stream.on('wantTrailers', () => stream.sendTrailers(this.trailers));
    stream.on('error', ignore); // a reset by the peer ends the call through 'close'
  }

  get isFinished(): boolean {
    return this.finished || this.stream.destroyed;
  }

  /**
   * Reads the one request message and decodes it. A message over `maxBytes`, before or after gzip
   * decompression, answers RESOURCE_EXHAUSTED without reading further; anything that is not a
   * message of the schema (invalid UTF-8 in a string included) answers INVALID_ARGUMENT.
   */
  readRequest<D extends DescMessage>(schema: D, maxBytes: number): Promise<MessageShape<D>> {
    const encoding = String(this.requestEncoding ?? 'identity');
    return new Promise<Buffer>((resolve, reject) => {
      this.onRequest = (body) => {
        if (body.length < 5) reject(AppError.invalid('The request has no message.'));
        else if (body.length < 5 + body.readUInt32BE(1)) reject(AppError.invalid('The request message is incomplete.'));
        else resolve(body);
      };
      let expected = -1; // bytes of the whole first frame, once its header is in
      const onData = (chunk: Buffer): void => {
        if (!this.chunks) return;
        this.size += chunk.length;
        this.chunks.push(chunk);
        if (expected < 0 && this.size >= 5) {
          const length = Buffer.concat(this.chunks, this.size).readUInt32BE(1);
          if (length > maxBytes) {
            // Not another byte: the paused stream stops the client at its flow-control window.
            this.onRequest = null;
            this.requestAbandoned = true;
            this.complete(undefined, 'stop-reading');
            reject(tooLarge(maxBytes));
            return;
          }
          expected = 5 + length;
        }
        // Server streaming clients send one message and usually half-close, but some keep the
        // request open: start as soon as one whole message is there.
        if (expected >= 0 && this.size >= expected) this.complete(Buffer.concat(this.chunks, this.size));
      };
      this.stream.on('data', onData);
      this.stream.once('end', () => this.complete());
    }).then(async (body) => {
      const length = body.readUInt32BE(1);
      let message: Uint8Array = body.subarray(5, 5 + length);
      if (body[0] === 1) {
        if (encoding !== 'gzip') {
          throw new AppError('UNIMPLEMENTED', `Compressed requests must use gzip (got grpc-encoding ${encoding}).`);
        }
        try {
          message = await gunzipAsync(message, { maxOutputLength: maxBytes });
        } catch (error) {
          if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
          throw AppError.invalid('The request message is not valid gzip.');
        }
      } else if (body[0] !== 0) {
        throw AppError.invalid('The request message has an unknown flag.');
      }
      try {
        return fromBinary(schema, message);
      } catch {
        throw AppError.invalid(`The request is not a ${schema.name} (or holds text that is not UTF-8).`);
      }
    });
  }

  private complete(body?: Buffer, rest: 'drain' | 'stop-reading' = 'drain'): void {
    const chunks = this.chunks;
    if (!chunks) return;
    this.chunks = null; // the request buffers are not kept for the life of a long stream
    this.stream.removeAllListeners('data');
    if (rest === 'drain') this.stream.resume();
    else this.stream.pause();
    const handler = this.onRequest;
    this.onRequest = null;
    handler?.(body ?? (chunks.length > 0 ? Buffer.concat(chunks, this.size) : Buffer.alloc(0)));
  }

  sendHeaders(): void {
    if (this.headersSent || this.isFinished) return;
    this.headersSent = true;
    this.stream.respond(
      {
        [HTTP2_HEADER_STATUS]: 200,
        [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        'grpc-accept-encoding': 'identity,gzip',
      },
      { waitForTrailers: true },
    );
  }

  write(frame: Uint8Array): void {
    this.sendHeaders();
    this.stream.write(frame);
  }

  /** Ends the call with a status; before any message this is a trailers-only answer. */
  finish(code: ErrorCode | 'OK', message?: string, metadata: http2.OutgoingHttpHeaders = {}): void {
    if (this.finished) return;
    this.finished = true;
    if (this.stream.destroyed || this.stream.closed) return;
    const status = code === 'OK' ? '0' : String(errorTable[code].grpcCode);
    const statusHeaders: http2.OutgoingHttpHeaders = {
      ...metadata,
      'grpc-status': status,
      ...(message !== undefined ? { 'grpc-message': encodeGrpcMessage(message) } : {}),
    };
    if (!this.headersSent) {
      this.headersSent = true;
      this.stream.respond(
        { [HTTP2_HEADER_STATUS]: 200, [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc', ...statusHeaders },
        { endStream: true },
      );
    } else {
      this.trailers = statusHeaders;
      this.stream.end();
    }
    if (this.requestAbandoned) this.stopClientSending();
  }

  /**
   * HTTP/2 (RFC 9113 §8.1): a server that answered before reading the whole request asks the client
   * to stop sending with RST_STREAM NO_ERROR. It goes a moment after the answer: Node 22's HTTP/2
   * client never reports a response whose stream is reset while it still has data to write (gRPC
   * calls from grpc-js would hang), so the client first gets the time to read the status. Until then
   * the paused stream holds it at its flow-control window.
   */
  private stopClientSending(): void {
    const timer = setTimeout(() => {
      if (!this.stream.closed && !this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_NO_ERROR);
    }, ABANDONED_REQUEST_RESET_MS);
    timer.unref();
    this.stream.once('close', () => clearTimeout(timer));
  }

  /** Ends the call with the status of any error; unexpected ones are logged and answered INTERNAL. */
  fail(error: unknown, what: string): void {
    if (error instanceof AppError && error.code !== 'INTERNAL') {
      this.finish(error.code, error.message, grpcMetadataOf(error));
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
