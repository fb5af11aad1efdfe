import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { RealtimeConfigGrpcService, ValueType } from '@realtime-config/protocol';

export interface GeneratedEntry {
  readonly key: string;
  readonly valueType: ValueType;
  readonly value: string | null;
  readonly enumValues?: string;
}

/** Entries of many types in groups of 100, as a large application would register them. */
export function manyEntries(count: number): Map<string, GeneratedEntry[]> {
  const groups = new Map<string, GeneratedEntry[]>();
  const types = [ValueType.STRING, ValueType.NUMBER, ValueType.BOOLEAN, ValueType.TIME_SPAN, ValueType.ENUM];
  for (let i = 0; i < count; i++) {
    const group = `Module${String(Math.floor(i / 100)).padStart(2, '0')}`;
    const valueType = types[i % types.length] ?? ValueType.STRING;
    const value =
      {
        [ValueType.STRING]: `value-${i}`,
        [ValueType.NUMBER]: String(i),
        [ValueType.BOOLEAN]: 'true',
        [ValueType.TIME_SPAN]: '00:01:00',
        [ValueType.ENUM]: 'On',
      }[valueType as number] ?? null;
    const list = groups.get(group) ?? [];
    list.push({
      key: `${group}:Setting${String(i).padStart(4, '0')}`,
      valueType,
      value,
      ...(valueType === ValueType.ENUM ? { enumValues: 'On|Off' } : {}),
    });
    groups.set(group, list);
  }
  return groups;
}

/**
 * Registers a version the way the SDK does, with the gRPC CreateVersion call (Connect protocol on the
 * server's one port); answers the version id.
 */
export async function registerVersion(
  baseUrl: string,
  serviceId: string,
  version: string,
  groups: Map<string, GeneratedEntry[]>,
  apiKey?: string,
): Promise<string> {
  const client = createClient(RealtimeConfigGrpcService, createConnectTransport({ baseUrl, useBinaryFormat: true }));
  const response = await client.createVersion(
    {
      serviceId,
      version,
      classes: [...groups].map(([name, entries]) => ({
        name,
        description: `Settings of ${name}`,
        entries: entries.map((e) => ({
          key: e.key,
          name: e.key.split(':').pop() ?? e.key,
          valueType: e.valueType,
          value: e.value ?? undefined,
          enumValues: e.enumValues,
        })),
      })),
    },
    apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {},
  );
  return response.versionId;
}
