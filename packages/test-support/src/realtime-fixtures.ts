import {
  microsFromTimestamp,
  ValueType,
  type GetConfigResponse,
  type SubscriptionEvent,
} from '@realtime-config/protocol';
import type { GrpcTestClient } from './grpc-client.js';
import type { ApiResponse } from './test-server.js';

/** What the realtime tests need of a REST client: the plain ApiClient or the HTTPS one. */
export interface RestClient {
  get<T = any>(url: string): Promise<ApiResponse<T>>;
  post<T = any>(url: string, body?: unknown): Promise<ApiResponse<T>>;
  put<T = any>(url: string, body?: unknown): Promise<ApiResponse<T>>;
  delete<T = any>(url: string): Promise<ApiResponse<T>>;
}

/** A ConfigEvent or snapshot entry as plain data: null (not undefined) for an absent value, µs timestamps. */
export interface EventRow {
  key: string;
  value: string | null;
  generation: number;
  timestamp: number;
  type: ValueType;
}

type EntryLike = GetConfigResponse['entries'][number] | SubscriptionEvent['events'][number];

export function rowOf(e: EntryLike): EventRow {
  return {
    key: e.key,
    value: e.value ?? null,
    generation: e.generation,
    timestamp: e.timestamp ? microsFromTimestamp(e.timestamp) : -1,
    type: e.type,
  };
}

/** Every SubscriptionEvent as its list of rows, keeping how the events were grouped. */
export function eventRows(events: readonly SubscriptionEvent[]): EventRow[][] {
  return events.map((e) => e.events.map(rowOf));
}

export interface EntrySpec {
  key: string;
  valueType?: ValueType;
  value?: string;
  enumValues?: string;
}

/** Registers a version the way the client SDK does (CreateVersion over gRPC); returns its id. */
export async function registerVersion(
  client: GrpcTestClient,
  serviceId: string,
  version: string,
  entries: readonly EntrySpec[],
  metadata?: Parameters<GrpcTestClient['createVersion']>[1],
): Promise<string> {
  const { versionId } = await client.createVersion(
    {
      serviceId,
      version,
      classes: [
        {
          name: 'AppOptions',
          entries: entries.map((e) => ({
            key: e.key,
            name: e.key,
            valueType: e.valueType ?? ValueType.STRING,
            value: e.value,
            enumValues: e.enumValues,
          })),
        },
      ],
    },
    metadata,
  );
  return versionId;
}

export interface RestEntry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

/** The entries of a version through REST, by key. */
export async function entriesByKey(
  rest: RestClient,
  serviceId: string,
  versionId: string,
): Promise<Record<string, RestEntry>> {
  const res = await rest.get<RestEntry[]>(`/api/configentries/${serviceId}/${versionId}`);
  if (res.status !== 200) throw new Error(`listing entries: ${res.status} ${res.text}`);
  return Object.fromEntries(res.body.map((e) => [e.key, e]));
}

/** Sets one entry's value through the REST batch endpoint, with its current generation; returns the new generation. */
export async function setValue(
  rest: RestClient,
  serviceId: string,
  versionId: string,
  entry: RestEntry,
  rawValue: string | null,
): Promise<number> {
  const res = await rest.put<Array<{ generation: number }>>(`/api/configentries/${serviceId}/${versionId}/set`, [
    { id: entry.id, rawValue, generation: entry.generation },
  ]);
  if (res.status !== 200) throw new Error(`setting ${entry.key}: ${res.status} ${res.text}`);
  entry.generation = res.body[0]!.generation;
  entry.rawValue = rawValue;
  return entry.generation;
}

/**
 * The value of one sample of GET /metrics (Prometheus text format), 0 when the series is absent.
 * `labels` must match the sample's labels exactly as the server prints them, e.g. `method="GetConfig",path="connect"`.
 */
export async function readMetric(rest: RestClient, name: string, labels = ''): Promise<number> {
  const res = await rest.get<string>('/metrics');
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  const series = labels ? `${name}{${labels}}` : name;
  for (const line of res.text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}
