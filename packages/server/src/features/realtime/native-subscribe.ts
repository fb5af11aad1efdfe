import http2 from 'node:http2';
import { StartSubscribeRequestSchema } from '../../protocol.js';
import { audienceOf, type EventBatch } from './event-batch.js';
import type { GrpcCredentials } from './grpc-authorizer.js';
import { SMALL_REQUEST_BYTES, type NativeCallOptions } from './native-calls.js';
import { credentialsOfHeaders, NativeGrpcCall } from './native-grpc.js';
import { streamClientOf } from './stream-client.js';
import { streamOriginOf } from './stream-admission.js';
import type { Subscription, SubscriberSink, Subscriptions } from './subscriptions.js';

const { NGHTTP2_REFUSED_STREAM } = http2.constants;

export interface NativeSubscribeOptions extends NativeCallOptions {
  readonly subscriptions: Subscriptions;
  /** Bytes a stream may have waiting in its write buffer before its subscriber counts as too slow. */
  readonly maxBufferedBytes: number;
}

/**
 * The fan-out fast path: StartSubscribe on the raw HTTP/2 stream, writing each change's
 * pre-encoded gRPC frame (shared by every subscriber of the version) straight to the stream.
 * A generic streaming handler would allocate and encode per subscriber; at thousands of streams
 * that is most of the cost (ADR 0004). One object per stream is the sink itself.
 */
class NativeSubscriber extends NativeGrpcCall implements SubscriberSink {
  private subscription: Subscription | undefined;

  constructor(
    stream: http2.ServerHttp2Stream,
    private readonly options: NativeSubscribeOptions,
    private readonly credentials: GrpcCredentials,
    private readonly headers: http2.IncomingHttpHeaders,
  ) {
    super(stream, options.logger, headers['grpc-encoding']);
    stream.once('close', () => this.subscription?.close());
  }

  async start(): Promise<void> {
    try {
      this.options.requireCredentials(this.credentials);
      const { session } = this.stream;
      const origin = streamOriginOf(session, session?.socket?.remoteAddress);
      const client = streamClientOf((name) => {
        const value = this.headers[name];
        return Array.isArray(value) ? value.join(',') : value;
      }, origin.address);
      const maxBytes = Math.min(SMALL_REQUEST_BYTES, this.options.maxReceiveMessageBytes);
      const request = await this.readRequest(StartSubscribeRequestSchema, maxBytes);
      const parsed = await this.options.calls.subscribeRequest(request, this.credentials);
      if (this.isFinished) return;
      const subscription = await this.options.subscriptions.open(
        {
          serviceId: parsed.serviceId,
          versionId: parsed.versionId,
          afterTimestamp: parsed.afterTimestamp,
          audience: audienceOf(parsed.withSecrets),
          credentials: parsed.credentials,
          client,
          origin,
        },
        this,
      );
      if (this.isFinished) {
        subscription.close();
        return;
      }
      this.subscription = subscription;
      this.sendHeaders(); // the stream is established even when there is no backfill
    } catch (error) {
      this.fail(error, 'StartSubscribe');
    }
  }

  deliver(batch: EventBatch): boolean {
    if (this.isFinished) return false;
    if (this.stream.writableLength > this.options.maxBufferedBytes) {
      // The client stopped reading. Trailers would wait behind the full buffer, so the stream is
      // reset; gRPC clients report REFUSED_STREAM as UNAVAILABLE and reconnect with their last
      // timestamp.
      this.subscription?.close();
      this.reset(NGHTTP2_REFUSED_STREAM);
      return false;
    }
    this.write(batch.frame());
    return true;
  }

  end(code: Parameters<SubscriberSink['end']>[0], message: string): void {
    this.subscription?.close();
    this.finish(code, message);
  }
}

export function serveNativeSubscribe(
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  options: NativeSubscribeOptions,
): void {
  const credentials = credentialsOfHeaders(headers);
  void new NativeSubscriber(stream, options, credentials, headers).start();
}
