import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import {
  CreateVersionRequestSchema,
  CreateVersionResponseSchema,
  GetConfigRequestSchema,
  GetConfigResponseSchema,
  IsVersionExistRequestSchema,
  IsVersionExistResponseSchema,
  StartSubscribeRequestSchema,
  SubscriptionEventSchema,
  type CreateVersionResponse,
  type GetConfigResponse,
  type IsVersionExistResponse,
  type SubscriptionEvent,
} from '@realtime-config/protocol';

function method<I extends DescMessage, O extends DescMessage>(
  path: string,
  input: I,
  output: O,
  responseStream: boolean,
) {
  return {
    path,
    requestStream: false,
    responseStream,
    requestSerialize: (m: MessageShape<I>) => Buffer.from(toBinary(input, m)),
    requestDeserialize: (b: Buffer) => fromBinary(input, b),
    responseSerialize: (m: MessageShape<O>) => Buffer.from(toBinary(output, m)),
    responseDeserialize: (b: Buffer) => fromBinary(output, b),
  };
}

/** A real grpc-js client of RealtimeConfigGrpcService, with protobuf-es doing the encoding. */
export function serviceDefinition(pkg = 'konfigo.client') {
  const base = pkg ? `/${pkg}.RealtimeConfigGrpcService` : '/RealtimeConfigGrpcService';
  return {
    GetConfig: method(`${base}/GetConfig`, GetConfigRequestSchema, GetConfigResponseSchema, false),
    IsVersionExists: method(
      `${base}/IsVersionExists`,
      IsVersionExistRequestSchema,
      IsVersionExistResponseSchema,
      false,
    ),
    CreateVersion: method(`${base}/CreateVersion`, CreateVersionRequestSchema, CreateVersionResponseSchema, false),
    StartSubscribe: method(`${base}/StartSubscribe`, StartSubscribeRequestSchema, SubscriptionEventSchema, true),
  } as const;
}

export class GrpcTestClient {
  private readonly client: grpc.Client;

  constructor(
    address: string,
    credentials = grpc.credentials.createInsecure(),
    options: grpc.ClientOptions = {},
    pkg?: string,
  ) {
    const Ctor = grpc.makeGenericClientConstructor(
      serviceDefinition(pkg) as unknown as grpc.ServiceDefinition,
      'RealtimeConfigGrpcService',
    );
    this.client = new Ctor(address, credentials, options);
  }

  private unary<R>(name: string, request: unknown, metadata = new grpc.Metadata()): Promise<R> {
    return new Promise((resolve, reject) => {
      const fn = (this.client as unknown as Record<string, (...args: unknown[]) => void>)[name]!.bind(this.client);
      fn(request, metadata, (err: grpc.ServiceError | null, response: R) => (err ? reject(err) : resolve(response)));
    });
  }

  getConfig(
    init: MessageInitShape<typeof GetConfigRequestSchema>,
    metadata?: grpc.Metadata,
  ): Promise<GetConfigResponse> {
    return this.unary('GetConfig', create(GetConfigRequestSchema, init), metadata);
  }

  isVersionExists(
    init: MessageInitShape<typeof IsVersionExistRequestSchema>,
    metadata?: grpc.Metadata,
  ): Promise<IsVersionExistResponse> {
    return this.unary('IsVersionExists', create(IsVersionExistRequestSchema, init), metadata);
  }

  createVersion(
    init: MessageInitShape<typeof CreateVersionRequestSchema>,
    metadata?: grpc.Metadata,
  ): Promise<CreateVersionResponse> {
    return this.unary('CreateVersion', create(CreateVersionRequestSchema, init), metadata);
  }

  /** Opens a StartSubscribe stream; events and the final status are collected. */
  subscribe(init: MessageInitShape<typeof StartSubscribeRequestSchema>, metadata = new grpc.Metadata()): Subscription {
    const call = (
      this.client as unknown as {
        StartSubscribe: (r: unknown, m: grpc.Metadata) => grpc.ClientReadableStream<SubscriptionEvent>;
      }
    ).StartSubscribe(create(StartSubscribeRequestSchema, init), metadata);
    return new Subscription(call);
  }

  close(): void {
    this.client.close();
  }
}

export class Subscription {
  readonly events: SubscriptionEvent[] = [];
  status: grpc.StatusObject | undefined;
  error: grpc.ServiceError | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly call: grpc.ClientReadableStream<SubscriptionEvent>) {
    call.on('data', (event: SubscriptionEvent) => {
      this.events.push(event);
      this.notify();
    });
    call.on('error', (err: grpc.ServiceError) => {
      this.error = err;
      this.notify();
    });
    call.on('status', (status: grpc.StatusObject) => {
      this.status = status;
      this.notify();
    });
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when the predicate holds (checked after every event and at the end), or rejects after the timeout. */
  async until(predicate: (s: this) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) {
        throw new Error(
          `condition not met in ${timeoutMs} ms; events: ${this.events.length}, status: ${this.status?.code}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Every ConfigEvent received, flattened, in order. */
  get configEvents() {
    return this.events.flatMap((e) => e.events);
  }

  cancel(): void {
    this.call.cancel();
  }
}
