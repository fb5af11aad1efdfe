import { create, toBinary } from '@bufbuild/protobuf';
import {
  SubscriptionEvent_ConfigEventSchema,
  SubscriptionEventSchema,
  timestampFromMicros,
  type SubscriptionEvent,
} from '../../protocol.js';
import {
  alreadyHas,
  isTargeted,
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

/** Whether a change can reach instances differently: it has overrides or a rollout, or is a rollout's move. */
const targetedChange = (c: EntryChange): boolean => isTargeted(c) || c.before !== undefined;

/** Whether any change is targeted: only then can what instances receive differ. */
export const anyTargeted = (changes: readonly EntryChange[]): boolean => changes.some(targetedChange);

/**
 * A change as one instance receives it: its value and generation resolved for the instance (core's
 * resolveEntry), without overrides or rollout, so that no encoding ever holds a value resolved for
 * other instances.
 */
export function resolvedChange(change: EntryChange, instance: TargetedInstance): EntryChange {
  if (!targetedChange(change)) return change;
  const resolved = resolveChange(change, instance);
  const { overrides: _overrides, rollout: _rollout, before: _before, ...rest } = change;
  return {
    ...rest,
    value: resolved.rawValue,
    generation: resolved.generation,
    ...(resolved.unreadable ? { unreadable: true } : {}),
  };
}

/**
 * Changes as one instance receives them (the same array when none is targeted), without those it
 * already has (a rollout's step that does not reach it, core's alreadyHas).
 */
export function resolvedChanges(changes: readonly EntryChange[], instance: TargetedInstance): readonly EntryChange[] {
  if (!anyTargeted(changes)) return changes;
  return changes.filter((c) => !alreadyHas(c, instance)).map((c) => resolvedChange(c, instance));
}

/**
 * The batch of each stream for targeted changes: streams whose instances resolve the changed entries
 * alike (core's resolutionKey, before and after a rollout's move) share one batch, encoded once;
 * those that match no override and are in no rollout get `shared`, the batch every stream gets
 * without targeting. Without rollouts, streams with equal labels share their labels' map
 * (stream-client.ts), so each set of labels is resolved once.
 */
export function targetedBatches(
  entries: readonly EntryChange[],
  shared: Readonly<Record<Audience, EventBatch | undefined>>,
): (stream: { readonly audience: Audience; readonly target: TargetedInstance }) => EventBatch | undefined {
  const targeted = entries.filter(targetedChange);
  // A rollout's hash reads the instance id: then each instance is resolved on its own.
  const byInstance = targeted.some((e) => e.rollout || e.before);
  const befores = targeted.map((e) => ({ overrides: e.overrides, rollout: e.before ? e.before.rollout : e.rollout }));
  const resolutions = new Map<ReadonlyMap<string, string>, string | null>();
  const groups = new Map<string, EventBatch | undefined>();
  const keyOf = (target: TargetedInstance): string | null => {
    const after = resolutionKey(targeted, target);
    if (!byInstance) return after;
    // Even an instance in no rollout before or after has its own batch: without the moves it already has.
    return `${after ?? ''}|${resolutionKey(befores, target) ?? ''}`;
  };
  return ({ audience, target }) => {
    let key = byInstance ? undefined : resolutions.get(target.labels);
    if (key === undefined) {
      key = keyOf(target);
      if (!byInstance) resolutions.set(target.labels, key);
    }
    if (key === null) return shared[audience];
    const group = `${audience}\n${key}`;
    if (!groups.has(group)) {
      const changes = resolvedChanges(entries, target);
      groups.set(group, changes.length > 0 ? (new EventBatch(changes).for(audience) ?? undefined) : undefined);
    }
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
