import { parseLabels, UNTARGETED, type TargetedInstance } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

/** What a StartSubscribe stream's client says of itself, and where it connects from. */
export interface StreamClient {
  /** x-rc-instance-id: the application instance (the SDK's default is hostname and pid); null when absent. */
  readonly instanceId: string | null;
  /** x-rc-sdk, e.g. `@realtime-config/client/1.2.0`; null when absent. */
  readonly sdk: string | null;
  readonly userAgent: string | null;
  /** The peer address of the connection (its StreamOrigin's). */
  readonly address: string | null;
  /** x-rc-labels as [key, value] pairs, in order, keys unique. */
  readonly labels: ReadonlyArray<readonly [string, string]>;
}

/** The longest x-rc-instance-id (and OFREP targetingKey). */
export const MAX_ID_CHARS = 200;
const MAX_USER_AGENT_CHARS = 500;

/**
 * The same user agent, SDK and address come from thousands of streams: each distinct text is kept
 * once, not once per stream. Bounded: when full it starts again.
 */
const INTERNED_MAX = 2048;
const interned = new Map<string, string>();
function intern(text: string): string {
  const known = interned.get(text);
  if (known !== undefined) return known;
  if (interned.size >= INTERNED_MAX) interned.clear();
  interned.set(text, text);
  return text;
}

function identifier(value: string | undefined, name: string): string | null {
  if (value === undefined || value === '') return null;
  if (value.length > MAX_ID_CHARS) throw AppError.invalid(`${name} is longer than ${MAX_ID_CHARS} characters.`);
  return value;
}

const internOrNull = (text: string | null): string | null => (text === null ? null : intern(text));

/**
 * The client of a stream from its request headers; INVALID_ARGUMENT for metadata that is malformed
 * or too long. The user agent is kept as sent, cut to a bounded length.
 */
export function streamClientOf(header: (name: string) => string | undefined, address: string | null): StreamClient {
  const userAgent = header('user-agent');
  return {
    instanceId: identifier(header('x-rc-instance-id'), 'x-rc-instance-id'),
    sdk: internOrNull(identifier(header('x-rc-sdk'), 'x-rc-sdk')),
    userAgent: userAgent ? intern(userAgent.slice(0, MAX_USER_AGENT_CHARS)) : null,
    address: internOrNull(address),
    labels: parseLabels(header('x-rc-labels')),
  };
}

/**
 * Streams with the same labels share one map of them, so a change resolved for a set of labels is
 * resolved once for all their streams (Subscriptions.flush). Bounded: when full it starts again.
 */
const labelSets = new Map<string, ReadonlyMap<string, string>>();
function labelSetOf(labels: ReadonlyArray<readonly [string, string]>): ReadonlyMap<string, string> {
  const key = labels.map(([k, v]) => `${k}\u0000${v}`).join('\u0001');
  const known = labelSets.get(key);
  if (known) return known;
  if (labelSets.size >= INTERNED_MAX) labelSets.clear();
  const made = new Map(labels);
  labelSets.set(key, made);
  return made;
}

/** The instance a client is, as targeting resolves values for it (core's resolveEntry). */
export function targetOf(client: StreamClient | undefined): TargetedInstance {
  if (!client || (client.instanceId === null && client.labels.length === 0)) return UNTARGETED;
  return { instanceId: client.instanceId, labels: labelSetOf(client.labels) };
}

/**
 * The instance a unary call comes from (GetConfig): x-rc-instance-id and x-rc-labels, as a stream's;
 * INVALID_ARGUMENT when malformed. A call without them resolves every entry to its value.
 */
export function instanceFrom(header: (name: string) => string | undefined): TargetedInstance {
  const instanceId = identifier(header('x-rc-instance-id'), 'x-rc-instance-id');
  const labels = parseLabels(header('x-rc-labels'));
  if (instanceId === null && labels.length === 0) return UNTARGETED;
  return { instanceId, labels: new Map(labels) };
}
