import { create, toBinary } from '@bufbuild/protobuf';
import {
  SubscriptionEvent_ConfigEventSchema,
  SubscriptionEventSchema,
  timestampFromMicros,
  type SubscriptionEvent,
} from '../../protocol.js';
import {
  resolutionKey,
  resolveChange,
  type Audience,
  type EntryChange,
  type TargetedInstance,
} from '../../core/index.js';
import { grpcFrame } from './grpc-message.js';

/**
 * Who an answer is for (core's Audience): callers allowed to read secrets get them; everyone else
 * gets the version without its secret entries (left out, never null). Unreadable secrets are left
 * out for all.
 */
export type { Audience };

export const audienceOf = (withSecrets: boolean): Audience => (withSecrets ? 'secrets' : 'public');

/** Whether a change of an entry reaches an audience. */
export function reaches(change: EntryChange, audience: Audience): boolean {
  if (!change.isSecret) return true;
  return audience === 'secrets' && !change.unreadable;
}

/** Whether any change carries overrides: only then can what instances receive differ. */
export const anyTargeted = (changes: readonly EntryChange[]): boolean => changes.some((c) => c.overrides);

/**
 * A change as one instance receives it: its value resolved for the instance (core's resolveEntry),
 * without the overrides, so that no encoding ever holds a value resolved for other labels.
 */
export function resolvedChange(change: EntryChange, instance: TargetedInstance): EntryChange {
  if (!change.overrides) return change;
  const resolved = resolveChange(change, instance);
  const { overrides: _overrides, ...rest } = change;
  return {
    ...rest,
    value: resolved.rawValue,
    ...(resolved.unreadable ? { unreadable: true } : {}),
  };
}

/** Changes as one instance receives them (the same array when none has overrides). */
export function resolvedChanges(changes: readonly EntryChange[], instance: TargetedInstance): readonly EntryChange[] {
  return anyTargeted(changes) ? changes.map((c) => resolvedChange(c, instance)) : changes;
}

/**
 * The batch of each stream for changes of entries with overrides: streams whose instances resolve
 * the changed entries alike (core's resolutionKey) share one batch, encoded once; those that match
 * no override get `shared`, the batch every stream gets without targeting. Streams with equal labels
 * share their labels' map (stream-client.ts), so each set of labels is resolved once.
 */
export function targetedBatches(
  entries: readonly EntryChange[],
  shared: Readonly<Record<Audience, EventBatch | undefined>>,
): (stream: { readonly audience: Audience; readonly target: TargetedInstance }) => EventBatch | undefined {
  const targeted = entries.filter((e) => e.overrides);
  const resolutions = new Map<ReadonlyMap<string, string>, string | null>();
  const groups = new Map<string, EventBatch | undefined>();
  return ({ audience, target }) => {
    let key = resolutions.get(target.labels);
    if (key === undefined) {
      key = resolutionKey(targeted, target.labels);
      resolutions.set(target.labels, key);
    }
    if (key === null) return shared[audience];
    const group = `${audience}\n${key}`;
    if (!groups.has(group))
      groups.set(group, new EventBatch(resolvedChanges(entries, target)).for(audience) ?? undefined);
    return groups.get(group);
  };
}

/**
 * Changes on their way to subscribers: built once per change (or burst of changes) and shared by
 * every subscriber of the version. The protobuf message and the gRPC frame are made on first use
 * and then reused, so a change costs one encoding however many streams receive it.
 */
export class EventBatch {
  private messageCache: SubscriptionEvent | undefined;
  private frameCache: Uint8Array | undefined;

  constructor(readonly entries: readonly EntryChange[]) {}

  /** The batch of the changes an audience receives (this one when all of them reach it); null when none does. */
  for(audience: Audience): EventBatch | null {
    const reaching = this.entries.filter((e) => reaches(e, audience));
    if (reaching.length === this.entries.length) return this;
    return reaching.length > 0 ? new EventBatch(reaching) : null;
  }

  get lastTimestamp(): number {
    return this.entries.at(-1)?.timestamp ?? 0;
  }

  message(): SubscriptionEvent {
    this.messageCache ??= create(SubscriptionEventSchema, {
      events: this.entries.map((e) =>
        create(SubscriptionEvent_ConfigEventSchema, {
          key: e.key,
          // Unset (null) means the key was deleted or has no value; "" is a real empty string.
          ...(e.value !== null ? { value: e.value } : {}),
          generation: e.generation,
          timestamp: timestampFromMicros(e.timestamp),
          type: e.valueType,
          // Tells a client to keep it off disk, whatever its own schema declares.
          isSecret: e.isSecret === true,
        }),
      ),
    });
    return this.messageCache;
  }

  /** The gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length, bytes. */
  frame(): Uint8Array {
    this.frameCache ??= grpcFrame(toBinary(SubscriptionEventSchema, this.message()));
    return this.frameCache;
  }
}
