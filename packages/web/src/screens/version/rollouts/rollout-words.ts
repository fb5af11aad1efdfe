import type { Rollout, RolloutStatus } from '@realtime-config/protocol/rest';

/** The dot of a status badge; its word stays in the text colour (as change requests show theirs). */
export const STATUS_COLORS: Record<RolloutStatus, string> = {
  scheduled: 'gray',
  running: 'blue',
  paused: 'yellow',
  baking: 'grape',
  completed: 'teal',
  rolled_back: 'red',
};

export const STATUS_WORDS: Record<RolloutStatus, string> = {
  scheduled: 'Scheduled',
  running: 'Running',
  paused: 'Paused',
  baking: 'Baking',
  completed: 'Completed',
  rolled_back: 'Rolled back',
};

/** `Payments:Mode`, `A and B`, `A, B and 3 more`: what a rollout changes, for its heading. */
export function rolloutKeys(rollout: Pick<Rollout, 'changes'>): string {
  const keys = rollout.changes.map((c) => c.key);
  if (keys.length <= 2) return keys.join(' and ');
  return `${keys.slice(0, 2).join(', ')} and ${keys.length - 2} more`;
}

/** A share as people read it: 0.2 → "20 %". */
export function percentText(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}
