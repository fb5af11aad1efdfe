import type { Code } from '@connectrpc/connect';
import { ConnectError, createContextKey, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { KonfigoLayoutService, RealtimeConfigGrpcService, type SubscriptionEvent } from '../../protocol.js';
import type { ConfigCalls } from './config-calls.js';
import { audienceOf, type EventBatch } from './event-batch.js';
import { credentialsFrom, type GrpcCredentials } from './grpc-authorizer.js';
import { grpcStatusOf, toConnectError } from './grpc-errors.js';
import type { StreamOrigin } from './stream-admission.js';
import { instanceFrom, streamClientOf } from './stream-client.js';
import type { SubscriberSink, Subscriptions } from './subscriptions.js';

/** The connection and peer address of a call; the gateway sets it (Connect-ES does not carry them). */
export const streamOriginKey = createContextKey<StreamOrigin>(
  { connection: null, address: null },
  { description: 'stream origin' },
);

export interface ConfigRpcDependencies {
  readonly calls: ConfigCalls;
  readonly subscriptions: Subscriptions;
  readonly logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Bytes of events a subscriber may have waiting before it counts as too slow. */
  readonly maxBufferedBytes: number;
}

/** Connect-ES strips HTTP/2's `:authority`; the request URL it builds from it names the host. */
function credentialsOf(context: HandlerContext): GrpcCredentials {
  return credentialsFrom((name) =>
    name === 'host' ? hostOf(context.url) : (context.requestHeader.get(name) ?? undefined),
  );
}

/** The calling instance's x-rc-* metadata, for the values resolved for it. */
const instanceOf = (context: HandlerContext) => instanceFrom((name) => context.requestHeader.get(name) ?? undefined);

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * The four RPCs of RealtimeConfigGrpcService for Connect-ES, which serves gRPC-Web and the Connect
 * protocol (and gRPC that the native path does not take). Native gRPC over HTTP/2 takes the native
 * path instead (native-calls.ts); both do the work through ConfigCalls and Subscriptions.
 */
export function configRpcRoutes(deps: ConfigRpcDependencies) {
  const { calls, subscriptions, logger } = deps;
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toConnectError(error, logger);
    }
  };

  return (router: ConnectRouter): void => {
    // GetConfig in the Konfigo layout; the gateway sends GetConfig calls here when configured to.
    router.service(KonfigoLayoutService, {
      getConfig: (request, context) =>
        guard(() => calls.getKonfigoConfig(request, credentialsOf(context), instanceOf(context))),
    });
    router.service(RealtimeConfigGrpcService, {
      getConfig: (request, context) =>
        guard(() => calls.getConfig(request, credentialsOf(context), instanceOf(context))),
      isVersionExists: (request, context) => guard(() => calls.isVersionExists(request, credentialsOf(context))),
      createVersion: (request, context) => guard(() => calls.createVersion(request, credentialsOf(context))),

      async *startSubscribe(request, context): AsyncGenerator<SubscriptionEvent> {
        const parsed = await guard(() => calls.subscribeRequest(request, credentialsOf(context)));
        const origin = context.values.get(streamOriginKey);
        const client = await guard(() =>
          Promise.resolve(streamClientOf((name) => context.requestHeader.get(name) ?? undefined, origin.address)),
        );
        const queue = new BatchQueue(deps.maxBufferedBytes);
        // Listen before the backfill is read: a client gone meanwhile must still end its subscription.
        const onAbort = (): void => queue.finish(null);
        context.signal.addEventListener('abort', onAbort);
        try {
          if (context.signal.aborted) onAbort();
          const subscription = await guard(() =>
            subscriptions.open(
              {
                serviceId: parsed.serviceId,
                versionId: parsed.versionId,
                afterTimestamp: parsed.afterTimestamp,
                audience: audienceOf(parsed.withSecrets),
                credentials: parsed.credentials,
                client,
                origin,
              },
              queue,
            ),
          );
          try {
            for (;;) {
              const next = await queue.next();
              if (next === null) return;
              if (next instanceof ConnectError) throw next;
              yield next.message();
            }
          } finally {
            subscription.close();
          }
        } finally {
          context.signal.removeEventListener('abort', onAbort);
        }
      },
    });
  };
}

/** A Connect-protocol subscriber's waiting batches; bounded so a client that stops reading is dropped. */
class BatchQueue implements SubscriberSink {
  private readonly items: EventBatch[] = [];
  private bytes = 0;
  private ending: ConnectError | null | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly maxBytes: number) {}

  deliver(batch: EventBatch): boolean {
    if (this.ending !== undefined || this.bytes > this.maxBytes) return false;
    this.items.push(batch);
    this.bytes += batch.frame().length;
    this.wake?.();
    return true;
  }

  end(code: Parameters<SubscriberSink['end']>[0], message: string): void {
    this.finish(new ConnectError(message, grpcStatusOf(code) as Code));
  }

  /** null ends the stream without an error (the client went away). */
  finish(ending: ConnectError | null): void {
    if (this.ending === undefined) this.ending = ending;
    this.wake?.();
  }

  async next(): Promise<EventBatch | ConnectError | null> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        this.bytes -= item.frame().length;
        return item;
      }
      if (this.ending !== undefined) return this.ending;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
