import { isoToMicros } from '../../platform/clock.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';

/** A rollout as its creator asks for it (REST, a change request's application). */
export interface RolloutInput {
  readonly changes: readonly { readonly id: string; readonly rawValue: string | null; readonly generation: number }[];
  readonly steps: readonly number[];
  readonly stepSeconds: number;
  readonly bakeSeconds: number;
  /** ISO time; null (or absent) for now. */
  readonly startAt?: string | null;
  readonly match?: { readonly labels?: Readonly<Record<string, string>> } | null;
  readonly rollback?: { readonly disconnectedShare?: number } | null;
}

/** The most entries one rollout changes. */
export const MAX_ROLLOUT_CHANGES = 1000;
export const MAX_STEPS = 10;
export const MAX_STEP_SECONDS = 86_400;
export const MAX_BAKE_SECONDS = 604_800;
const MAX_START_AHEAD_MICROS = 90 * 86_400 * 1_000_000;

/**
 * The rules of a rollout's settings (docs/rollouts.md), every problem named at once (400); answers
 * its start time in µs (now when none is given, or a past one).
 */
export function requireValidRollout(input: RolloutInput, nowMicros: number): number {
  const errors = dictionary<string[]>();
  const add = (field: string, problem: string) => (errors[field] ??= []).push(problem);
  const { steps } = input;
  if (steps.length < 1 || steps.length > MAX_STEPS) add('steps', `must hold 1 to ${MAX_STEPS} percentages`);
  steps.forEach((p, i) => {
    if (!Number.isFinite(p) || p <= 0 || p > 100) add(`steps[${i}]`, 'must be a percentage above 0, at most 100');
    if (i > 0 && p <= (steps[i - 1] as number)) add('steps', 'must be strictly increasing');
  });
  if (steps.length > 0 && steps.at(-1) !== 100) add('steps', 'must end at 100');
  if (!Number.isInteger(input.stepSeconds) || input.stepSeconds < 1 || input.stepSeconds > MAX_STEP_SECONDS)
    add('stepSeconds', `must be a whole number of seconds from 1 to ${MAX_STEP_SECONDS}`);
  if (!Number.isInteger(input.bakeSeconds) || input.bakeSeconds < 0 || input.bakeSeconds > MAX_BAKE_SECONDS)
    add('bakeSeconds', `must be a whole number of seconds from 0 to ${MAX_BAKE_SECONDS}`);
  if (input.changes.length < 1 || input.changes.length > MAX_ROLLOUT_CHANGES)
    add('changes', `must hold 1 to ${MAX_ROLLOUT_CHANGES} changes`);
  const seen = new Set<string>();
  for (const change of input.changes) {
    if (seen.has(change.id)) add('changes', `names entry ${change.id} more than once`);
    seen.add(change.id);
  }
  const labels = Object.entries(input.match?.labels ?? {});
  for (const [key, value] of labels) {
    if (key === '' || key.length > 200 || value.length > 200)
      add('match.labels', 'each label key (non-empty) and value is at most 200 characters');
  }
  const share = input.rollback?.disconnectedShare;
  if (share !== undefined && (!Number.isFinite(share) || share <= 0 || share > 1))
    add('rollback.disconnectedShare', 'must be a share above 0, at most 1');
  let startAt = nowMicros;
  if (input.startAt !== undefined && input.startAt !== null) {
    const at = isoToMicros(input.startAt);
    if (at === undefined) add('startAt', 'must be an ISO 8601 time with a zone');
    else if (at > nowMicros + MAX_START_AHEAD_MICROS) add('startAt', 'must be at most 90 days ahead');
    else startAt = Math.max(nowMicros, at);
  }
  const named = Object.entries(errors);
  if (named.length > 0) {
    const words = named.map(([field, problems]) => `${field} ${problems.join(', ')}`).join('; ');
    throw AppError.invalid(`The rollout is not valid: ${words}.`, errors);
  }
  return startAt;
}
