import { create } from '@bufbuild/protobuf';
import type { Code } from '@connectrpc/connect';
import { ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import {
  CreateVersionResponseSchema,
  IsVersionExistResponseSchema,
  RealtimeConfigGrpcService,
  type SubscriptionEvent,
} from '@realtime-config/protocol';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { VersionRegistration } from '../versions/version-registration.js';
import type { EventBatch } from './event-batch.js';
import type { GrpcAuthorizer } from './grpc-authorizer.js';
import { grpcStatusOf, toConnectError } from './grpc-errors.js';
import { parseSubscribeRequest, requireLabel, requireUuid } from './subscribe-request.js';
import type { SubscriberSink, Subscriptions } from './subscriptions.js';
import type { VersionSnapshots } from './version-snapshots.js';

export interface ConfigRpcDependencies {
  readonly uow: UnitOfWork;
  readonly snapshots: VersionSnapshots;
  readonly registration: VersionRegistration;
  readonly subscriptions: Subscriptions;
  readonly logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Checks each call's credentials (Grpc:RequireAuthentication) and names its actor for the audit log. */
  readonly authorizer: GrpcAuthorizer;
  /** Bytes of events a subscriber may have waiting before it counts as too slow. */
  readonly maxBufferedBytes: number;
}

/**
 * The four RPCs of RealtimeConfigGrpcService for Connect-ES, which serves them over gRPC, gRPC-Web
 * and the Connect protocol. Native gRPC StartSubscribe calls over HTTP/2 take the fast path in
 * native-subscribe.ts instead; both produce the same messages from the same Subscriptions.
 */
export function configRpcRoutes(deps: ConfigRpcDependencies) {
  const { uow, snapshots, registration, subscriptions, logger, authorizer } = deps;
  // After the request is validated: the service it names decides which API keys may call.
  const authorize = (context: HandlerContext, serviceId: string) =>
    authorizer.authorize(context.requestHeader.get('authorization') ?? undefined, serviceId);
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toConnectError(error, logger);
    }
  };

  return (router: ConnectRouter): void => {
    router.service(RealtimeConfigGrpcService, {
      getConfig: (request, context) =>
        guard(async () => {
          requireUuid('service_id', request.serviceId);
          requireLabel(request.version);
          await authorize(context, request.serviceId);
          return snapshots.getConfig(request.serviceId.toLowerCase(), request.version);
        }),

      isVersionExists: (request, context) =>
        guard(async () => {
          requireUuid('service_id', request.serviceId);
          requireLabel(request.version);
          await authorize(context, request.serviceId);
          const version = await uow.read.versions.findByLabel(request.serviceId.toLowerCase(), request.version);
          return create(IsVersionExistResponseSchema, version ? { versionId: version.id } : {});
        }),

      createVersion: (request, context) =>
        guard(async () => {
          requireUuid('service_id', request.serviceId);
          const actor = await authorize(context, request.serviceId);
          const versionId = await registration.register(
            actor,
            request.serviceId.toLowerCase(),
            request.version,
            request.classes.map((c) => ({
              name: c.name,
              description: c.description ?? null,
              entries: c.entries.map((e) => ({
                key: e.key,
                name: e.name,
                description: e.description ?? null,
                valueType: e.valueType,
                enumValues: e.enumValues ?? null,
                defaultValue: e.value ?? null,
              })),
            })),
          );
          return create(CreateVersionResponseSchema, { versionId });
        }),

      async *startSubscribe(request, context): AsyncGenerator<SubscriptionEvent> {
        const parsed = await guard(async () => {
          const result = parseSubscribeRequest(request);
          await authorize(context, result.serviceId);
          return result;
        });
        const queue = new BatchQueue(deps.maxBufferedBytes);
        const subscription = await guard(() =>
          subscriptions.open(parsed.serviceId, parsed.versionId, parsed.afterTimestamp, queue),
        );
        const onAbort = (): void => queue.finish(null);
        context.signal.addEventListener('abort', onAbort);
        try {
          for (;;) {
            const next = await queue.next();
            if (next === null) return;
            if (next instanceof ConnectError) throw next;
            yield next.message();
          }
        } finally {
          context.signal.removeEventListener('abort', onAbort);
          subscription.close();
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

  end(code: 'NOT_FOUND' | 'UNAVAILABLE', message: string): void {
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
