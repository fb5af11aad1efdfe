import http2 from 'node:http2';
import { StartSubscribeRequestSchema } from '@realtime-config/protocol';
import type { EventBatch } from './event-batch.js';
import type { GrpcAuthorizer } from './grpc-authorizer.js';
import { NativeGrpcCall, type NativeLogger } from './native-grpc.js';
import { parseSubscribeRequest } from './subscribe-request.js';
import type { Subscription, SubscriberSink, Subscriptions } from './subscriptions.js';

const { NGHTTP2_REFUSED_STREAM } = http2.constants;

export interface NativeSubscribeOptions {
  readonly subscriptions: Subscriptions;
  readonly logger: NativeLogger;
  readonly authorizer: GrpcAuthorizer;
  /** Bytes a stream may have waiting in its write buffer before its subscriber counts as too slow. */
  readonly maxBufferedBytes: number;
}

/**
 * The fan-out fast path: StartSubscribe on the raw HTTP/2 stream, writing each change's
 * pre-encoded gRPC frame (shared by every subscriber of the version) straight to the stream.
 * A generic streaming handler would allocate and encode per subscriber; at thousands of streams
 * that is most of the cost (see DESIGN.md, "Fan-out"). One object per stream is the sink itself.
 */
class NativeSubscriber extends NativeGrpcCall implements SubscriberSink {
  private subscription: Subscription | undefined;

  constructor(
    stream: http2.ServerHttp2Stream,
    private readonly options: NativeSubscribeOptions,
    private readonly authorization: string | undefined,
  ) {
    super(stream, options.logger);
    stream.once('close', () => this.subscription?.close());
  }

  async start(): Promise<void> {
    try {
      const parsed = parseSubscribeRequest(await this.readRequest(StartSubscribeRequestSchema));
      await this.options.authorizer.authorize(this.authorization, parsed.serviceId);
      if (this.isFinished) return;
      const subscription = await this.options.subscriptions.open(
        parsed.serviceId,
        parsed.versionId,
        parsed.afterTimestamp,
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

  end(code: 'NOT_FOUND' | 'UNAVAILABLE', message: string): void {
    this.subscription?.close();
    this.finish(code, message);
  }
}

export function serveNativeSubscribe(
  stream: http2.ServerHttp2Stream,
  options: NativeSubscribeOptions,
  authorization: string | undefined,
): void {
  void new NativeSubscriber(stream, options, authorization).start();
}
