import { dictionary } from '../../platform/dictionary.js';
import { inRollout, slotOf, type RolloutReceivers, type RolloutRecord } from '../../core/index.js';

/** An open stream as the receivers' watch reads it. */
export interface ConnectedInstance {
  readonly instanceId: string | null;
  readonly labels: ReadonlyArray<readonly [string, string]>;
}

/**
 * Who received a rollout's new values, and who of them is gone (docs/rollouts.md): every connected
 * instance in the rollout at its current step joins `in`; an instance of `in` with no open stream
 * is gone since the first look that missed it, and back when it connects again. Null when nothing
 * changed.
 */
export function watchedReceivers(
  rollout: RolloutRecord,
  connected: readonly ConnectedInstance[],
  now: number,
): RolloutReceivers | null {
  const slot = slotOf(rollout, rollout.changes[0] as RolloutRecord['changes'][number]);
  const present = new Set<string>();
  const received = new Set(rollout.received.in);
  let changed = false;
  for (const stream of connected) {
    if (stream.instanceId === null) continue;
    present.add(stream.instanceId);
    if (
      !received.has(stream.instanceId) &&
      inRollout(slot, { instanceId: stream.instanceId, labels: new Map(stream.labels) })
    ) {
      received.add(stream.instanceId);
      changed = true;
    }
  }
  const gone = dictionary<number>();
  for (const id of received) {
    if (present.has(id)) continue;
    gone[id] = rollout.received.gone[id] ?? now;
  }
  if (Object.keys(gone).length !== Object.keys(rollout.received.gone).length) changed = true;
  return changed ? { in: [...received], gone } : null;
}

/**
 * Whether the instances gone for at least `graceMicros` reach the rollout's share of those that
 * received the new values, and are at least 2: then it rolls itself back.
 */
export function disconnectedEnough(rollout: RolloutRecord, now: number, graceMicros: number): boolean {
  const received = rollout.received.in.length;
  const gone = Object.values(rollout.received.gone).filter((since) => now - since >= graceMicros).length;
  return gone >= 2 && gone >= rollout.rollback.disconnectedShare * received;
}
