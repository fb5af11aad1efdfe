import { fromBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import type { RemoteEntry } from './config-state.js';
import {
  GetConfigResponse_ConfigEntrySchema,
  microsFromTimestamp,
  RealtimeConfigGrpcService,
  timestampFromMicros,
  VALUE_TYPE_CODES,
  type CreateVersionRequestSchema,
  type GetConfigResponse,
  type SubscriptionEvent,
} from './protocol.js';
import { callError, type Rpc } from './rpc.js';
import type { SchemaPlan } from './schema-plan.js';

/** Which version of which service. */
export interface VersionTarget {
  readonly serviceId: string;
  /** The version label. */
  readonly version: string;
}

/** A version as registration found it: its id and its snapshot. */
export interface LoadedVersion {
  readonly versionId: string;
  /** CreateVersion registered it (the label was new). */
  readonly created: boolean;
  readonly entries: RemoteEntry[];
}

type WireEntry = GetConfigResponse['entries'][number] | SubscriptionEvent['events'][number];

export function remoteEntryOf(entry: WireEntry): RemoteEntry {
  return {
    key: entry.key,
    value: entry.value ?? null,
    timestamp: entry.timestamp ? microsFromTimestamp(entry.timestamp) : 0,
    // A server that does not send is_secret leaves it false: the schema's `secret: true` still holds.
    ...(entry.isSecret ? { secret: true as const } : {}),
  };
}

function classesOf(plan: SchemaPlan): MessageInitShape<typeof CreateVersionRequestSchema>['classes'] {
  return plan.classes.map((cls) => ({
    name: cls.name,
    description: cls.description,
    entries: cls.settings.map((s) => ({
      key: s.key,
      name: s.path.at(-1) ?? s.key,
      description: s.setting.description,
      valueType: VALUE_TYPE_CODES[s.setting.valueType],
      enumValues: s.setting.enumValues?.join('|'),
      value: s.defaultRaw ?? undefined,
      isSecret: s.setting.secret,
      // Field 8: the rules the server checks every value of the entry against (new keys only).
      schema: s.setting.schema === undefined ? undefined : JSON.stringify(s.setting.schema),
    })),
  }));
}

// GetConfig decoded field by field, so both layouts of its answer read: the default (entries = 1) and
// the one of the Konfigo SDKs (service_id = 1, version_id = 2, entries = 3), which a server with
// Grpc:GetConfigLayout=Konfigo sends to keep a fleet of those SDKs working beside this one.
const getConfigFields = { ...RealtimeConfigGrpcService.method.getConfig, output: EmptySchema };

/** GetConfig's entries as the server sent them, in either layout. */
export async function getConfigWireEntries(
  rpc: Rpc,
  request: VersionTarget,
  signal: AbortSignal,
): Promise<GetConfigResponse['entries']> {
  const response = await rpc.transport.unary(getConfigFields, signal, undefined, undefined, request);
  const fields = response.message.$unknown ?? [];
  const entriesField = fields.some((f) => f.no === 2 || f.no === 3) ? 3 : 1;
  return fields
    .filter((f) => f.no === entriesField && f.wireType === WireType.LengthDelimited)
    .map((f) => fromBinary(GetConfigResponse_ConfigEntrySchema, new BinaryReader(f.data).bytes()));
}

async function getConfigEntries(rpc: Rpc, request: VersionTarget, signal: AbortSignal): Promise<RemoteEntry[]> {
  return (await getConfigWireEntries(rpc, request, signal)).map(remoteEntryOf);
}

/**
 * The start of a client's life (README, `connect`): IsVersionExists; CreateVersion only when the label
 * is unknown (an existing version is reused as it is); GetConfig for the snapshot.
 */
export async function registerAndLoad(
  rpc: Rpc,
  target: VersionTarget,
  plan: SchemaPlan,
  signal: AbortSignal,
): Promise<LoadedVersion> {
  const at = rpc.options.url;
  const request = { serviceId: target.serviceId, version: target.version };
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await rpc.withFreshToken(run);
    } catch (error) {
      throw callError(error, `${what} at ${at}`);
    }
  };
  const found = await call('IsVersionExists', () => rpc.client.isVersionExists(request, { signal }));
  let versionId = found.versionId;
  const created = versionId === undefined;
  if (versionId === undefined) {
    const registration = { ...request, classes: classesOf(plan) };
    versionId = (await call('CreateVersion', () => rpc.client.createVersion(registration, { signal }))).versionId;
  }
  const entries = await call('GetConfig', () => getConfigEntries(rpc, request, signal));
  return { versionId, created, entries };
}

/**
 * One StartSubscribe call, from request to end: every SubscriptionEvent after `after` (µs; undefined
 * for every current value first), as the server sends them. `onOpen` is called when the server
 * accepts the stream (response headers, not a trailers-only refusal). A refused token is asked for
 * again once, when nothing was received yet. Ends when the server ends the stream; fails with a
 * ConfigError naming the call.
 */
export async function* subscribeEvents(
  rpc: Rpc,
  request: { readonly serviceId: string; readonly versionId: string; readonly after: number | undefined },
  signal: AbortSignal,
  onOpen: () => void,
): AsyncGenerator<SubscriptionEvent> {
  const message = {
    serviceId: request.serviceId,
    versionId: request.versionId,
    timestamp: request.after === undefined ? undefined : timestampFromMicros(request.after),
  };
  const onHeader = (headers: Headers): void => {
    if (!headers.has('grpc-status')) onOpen(); // a trailers-only answer is a failure, not a stream
  };
  for (let refreshed = false; ; refreshed = true) {
    let received = false;
    try {
      for await (const event of rpc.client.startSubscribe(message, { signal, onHeader })) {
        received = true;
        yield event;
      }
      return;
    } catch (error) {
      if (refreshed || received || !rpc.refreshAfter(error)) {
        throw callError(error, `StartSubscribe at ${rpc.options.url}`);
      }
    }
  }
}
