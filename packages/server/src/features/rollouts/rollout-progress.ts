import type { RolloutRecord } from '../../core/index.js';

/**
 * A rollout's schedule (docs/rollouts.md), as pure functions of its record and the time: what the
 * next move makes of it. The commands write what these answer, through the entry writer.
 */

const SECOND = 1_000_000;

/** The rollout with its current step started now: running, or baking from the 100 % step. */
export function atStep(rollout: RolloutRecord, step: number, now: number): RolloutRecord {
  const last = step === rollout.steps.length - 1;
  return {
    ...rollout,
    status: last ? 'baking' : 'running',
    step,
    stepStartedAt: now,
    nextAt: now + (last ? rollout.bakeSeconds : rollout.stepSeconds) * SECOND,
    updatedAt: now,
  };
}

/** What the scheduler makes of a due rollout: its first step, its next step, or its completion. */
export type Move = { kind: 'step'; rollout: RolloutRecord } | { kind: 'complete' };

export function nextMove(rollout: RolloutRecord, now: number): Move {
  if (rollout.status === 'scheduled') return { kind: 'step', rollout: atStep(rollout, 0, now) };
  if (rollout.status === 'running') return { kind: 'step', rollout: atStep(rollout, rollout.step + 1, now) };
  return { kind: 'complete' };
}

/** Paused: where it stood stays (its instances keep what they have); the scheduler leaves it. */
export const paused = (rollout: RolloutRecord, now: number): RolloutRecord => ({
  ...rollout,
  status: 'paused',
  nextAt: null,
  updatedAt: now,
});

/** Resumed: back where it was paused, its current step (or bake) timed again from now. */
export function resumed(rollout: RolloutRecord, now: number): RolloutRecord {
  if (rollout.stepStartedAt === null) {
    return { ...rollout, status: 'scheduled', nextAt: Math.max(rollout.startAt, now), updatedAt: now };
  }
  return atStep(rollout, rollout.step, now);
}

/** Ended: completed or rolled back, with why; the scheduler never sees it again. */
export const ended = (
  rollout: RolloutRecord,
  status: 'completed' | 'rolled_back',
  reason: string | null,
  now: number,
): RolloutRecord => ({ ...rollout, status, nextAt: null, updatedAt: now, reason });
