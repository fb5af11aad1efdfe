import type http2 from 'node:http2';
import { toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import {
  CreateVersionRequestSchema,
  CreateVersionResponseSchema,
  GetConfigRequestSchema,
  IsVersionExistRequestSchema,
  IsVersionExistResponseSchema,
} from '../../protocol.js';
import type { ConfigCalls } from './config-calls.js';
import type { GrpcCredentials } from './grpc-authorizer.js';
import { grpcFrame } from './grpc-message.js';
import { instanceFrom } from './stream-client.js';
import { credentialsOfHeaders, NativeGrpcCall, type NativeLogger } from './native-grpc.js';

/** GetConfig, IsVersionExists and StartSubscribe requests are a few dozen bytes. */
export const SMALL_REQUEST_BYTES = 64 * 1024;

export interface NativeCallOptions {
  readonly calls: ConfigCalls;
  readonly logger: NativeLogger;
  /** Grpc:MaxReceiveMessageBytes: the largest request message (CreateVersion), before and after decompression. */
  readonly maxReceiveMessageBytes: number;
  /** Refuses a call without any credential before its message is read (Grpc:RequireAuthentication). */
  readonly requireCredentials: (credentials: GrpcCredentials) => void;
}

/** The unary RPCs on the raw HTTP/2 stream: read one message, answer one frame and trailers. */
function serveUnary<I extends DescMessage>(
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  options: NativeCallOptions,
  what: string,
  input: { schema: I; maxBytes: number },
  answer: (request: MessageShape<I>, credentials: GrpcCredentials) => Promise<Uint8Array>,
): void {
  const call = new NativeGrpcCall(stream, options.logger, headers['grpc-encoding']);
  const credentials = credentialsOfHeaders(headers);
  void (async () => {
    try {
      options.requireCredentials(credentials);
      const request = await call.readRequest(input.schema, input.maxBytes);
      const frame = await answer(request, credentials);
      if (call.isFinished) return;
      call.write(frame);
      call.finish('OK');
    } catch (error) {
      call.fail(error, what);
    }
  })();
}

const encoded = <O extends DescMessage>(schema: O, message: MessageShape<O>): Uint8Array =>
  grpcFrame(toBinary(schema, message));

export type NativeUnaryMethod = 'GetConfig' | 'IsVersionExists' | 'CreateVersion';

/** Serves one native unary call of the given method. */
export function serveNativeUnary(
  method: NativeUnaryMethod,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  options: NativeCallOptions,
): void {
  const { calls } = options;
  const small = Math.min(SMALL_REQUEST_BYTES, options.maxReceiveMessageBytes);
  switch (method) {
    case 'GetConfig':
      // The snapshot's encoded answer is cached until the version changes: a lookup and one write.
      // Per instance only when the version has overrides the instance matches (docs/targeting.md).
      serveUnary(stream, headers, options, method, { schema: GetConfigRequestSchema, maxBytes: small }, (r, c) =>
        calls.getConfigFrame(
          r,
          c,
          instanceFrom((name) => {
            const value = headers[name];
            return Array.isArray(value) ? value.join(',') : value;
          }),
        ),
      );
      return;
    case 'IsVersionExists':
      serveUnary(
        stream,
        headers,
        options,
        method,
        { schema: IsVersionExistRequestSchema, maxBytes: small },
        async (r, c) => encoded(IsVersionExistResponseSchema, await calls.isVersionExists(r, c)),
      );
      return;
    case 'CreateVersion':
      serveUnary(
        stream,
        headers,
        options,
        method,
        { schema: CreateVersionRequestSchema, maxBytes: options.maxReceiveMessageBytes },
        async (r, c) => encoded(CreateVersionResponseSchema, await calls.createVersion(r, c)),
      );
      return;
  }
}
