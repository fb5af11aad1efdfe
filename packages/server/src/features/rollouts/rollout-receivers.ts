import { dictionary } from '../../platform/dictionary.js';
import { inRollout, slotOf, type RolloutReceivers, type RolloutRecord } from '../../core/index.js';

/** An open stream as the receivers' watch reads it. */
export interface ConnectedInstance {
  readonly instanceId: string | null;
  readonly labels: ReadonlyArray<readonly [string, string]>;
}

const NO_LABELS: ReadonlyMap<string, string> = new Map();

/**
 * The instances judged out of each rollout at its current share, kept between looks so each is
 * hashed once per step, not once per look; forgotten when the share (or the rollout) changes.
 */
export class OutJudged {
  private readonly byRollout = new Map<string, { percent: number; out: Set<string> }>();

  of(slot: { readonly id: string; readonly percent: number }): Set<string> {
    let kept = this.byRollout.get(slot.id);
    if (!kept || kept.percent !== slot.percent) {
      kept = { percent: slot.percent, out: new Set() };
      this.byRollout.set(slot.id, kept);
    }
    return kept.out;
  }

  /** Keeps only the rollouts still watched. */
  keep(ids: ReadonlySet<string>): void {
    for (const id of this.byRollout.keys()) if (!ids.has(id)) this.byRollout.delete(id);
  }
}

/** A stream that closed since the rollout started (it may have lived between two looks). */
export interface ClosedInstance {
  readonly instanceId: string;
  readonly labels: ReadonlyArray<readonly [string, string]>;
  readonly closedAt: number;
}

/**
 * Who received a rollout's new values, and who of them is gone (docs/rollouts.md): every instance
 * in the rollout at its current step that is connected, or whose stream closed since the rollout
 * started (an application that crashed on the value at once), joins `in`; an instance of `in` with
 * no open stream is gone since its stream closed (or the first look that missed it), and back when
 * it connects again. Null when nothing changed.
 */
export function watchedReceivers(
  rollout: RolloutRecord,
  connected: readonly ConnectedInstance[],
  closed: readonly ClosedInstance[],
  now: number,
  judged: OutJudged = new OutJudged(),
): RolloutReceivers | null {
  const slot = slotOf(rollout, rollout.changes[0] as RolloutRecord['changes'][number]);
  const present = new Set<string>();
  const received = new Set(rollout.received.in);
  const closedAt = new Map<string, number>();
  const out = judged.of(slot);
  const byLabels = Object.keys(slot.match).length > 0;
  let changed = false;
  const join = (instanceId: string, labels: ReadonlyArray<readonly [string, string]>) => {
    if (received.has(instanceId)) return;
    // Who is out stays out at this step (the hash of an id does not change): judged once.
    const key = byLabels ? `${instanceId}\n${labels.join('\n')}` : instanceId;
    if (out.has(key)) return;
    if (!inRollout(slot, { instanceId, labels: byLabels ? new Map(labels) : NO_LABELS })) {
      out.add(key);
      return;
    }
    received.add(instanceId);
    changed = true;
  };
  for (const stream of connected) {
    if (stream.instanceId === null) continue;
    present.add(stream.instanceId);
    join(stream.instanceId, stream.labels);
  }
  for (const stream of closed) {
    if (stream.closedAt < rollout.startAt) continue;
    closedAt.set(stream.instanceId, Math.max(closedAt.get(stream.instanceId) ?? 0, stream.closedAt));
    join(stream.instanceId, stream.labels);
  }
  const gone = dictionary<number>();
  for (const id of received) {
    if (present.has(id)) continue;
    gone[id] = rollout.received.gone[id] ?? closedAt.get(id) ?? now;
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

/**
 * While enough receivers are gone to roll the rollout back once they stay away for the grace time,
 * it takes no step and does not complete: the time (µs) when that grace has passed for enough of
 * them (the watch then rolls it back, or they came back), or null when nothing holds it. Without
 * this, a bake shorter than the grace time would complete a change that crashed its instances.
 */
export function heldUntil(rollout: RolloutRecord, graceMicros: number): number | null {
  const since = Object.values(rollout.received.gone).sort((a, b) => a - b);
  const needed = Math.max(2, Math.ceil(rollout.rollback.disconnectedShare * rollout.received.in.length));
  if (since.length < needed) return null;
  return (since[needed - 1] as number) + graceMicros;
}
