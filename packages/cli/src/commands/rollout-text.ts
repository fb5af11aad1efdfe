import { shown, table } from '../output.js';
import type { Rollout } from './rollout-settings.js';

/** Statuses in which a rollout holds its entries (any other change of them answers 409). */
const ACTIVE: ReadonlySet<Rollout['status']> = new Set(['scheduled', 'running', 'paused', 'baking']);

export const isActive = (r: Rollout): boolean => ACTIVE.has(r.status);

/** A duration in seconds as the options take it: 90 → 90s, 300 → 5m, 3600 → 1h. */
export function durationText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

const stepOf = (r: Rollout) => `step ${r.step + 1} of ${r.steps.length}`;

/** Where a rollout stands, in one line: its status, step and share, and what comes next. */
export function standing(r: Rollout): string {
  switch (r.status) {
    case 'scheduled':
      return `scheduled: its first step (${r.steps[0]} %) starts at ${r.startAt}`;
    case 'running':
      return `running at ${r.percent} % (${stepOf(r)}); next step (${r.steps[r.step + 1]} %) at ${r.nextAt}`;
    case 'baking':
      return `baking at 100 % (${stepOf(r)}) until ${r.nextAt}, then completed`;
    case 'paused':
      return `paused at ${r.percent} % (${stepOf(r)}): no step is taken until it is resumed`;
    case 'completed':
      return `completed: the new values are the values${r.reason ? ` (${r.reason})` : ''}`;
    case 'rolled_back':
      return `rolled back (${r.reason ?? 'no reason recorded'}): every instance has the old values again`;
  }
}

/** A rollout in a few lines: its id, where it stands and the values it gives. */
export function rolloutSummary(r: Rollout): string {
  return [
    `Rollout ${r.id}: ${standing(r)}.`,
    ...r.changes.map((c) => `  ${c.key} → ${c.isSecret ? '•••••• (secret)' : shown(c.rawValue)}`),
  ].join('\n');
}

/** What one step of the rollout is: taken, the current one, due at a time, or left out. */
function stepState(r: Rollout, i: number): string {
  const started = r.stepStartedAt !== null;
  if (r.status === 'completed' || r.status === 'rolled_back') {
    if (!started || i > r.step) return 'not taken';
    if (i < r.step || r.status === 'completed') return 'done';
    return 'rolled back here';
  }
  if (started && i < r.step) return 'done';
  if (started && i === r.step) {
    if (r.status === 'paused') return `paused here (since ${r.updatedAt})`;
    return r.status === 'baking' ? `now, baking until ${r.nextAt}` : `now (since ${r.stepStartedAt})`;
  }
  if (r.status === 'paused') return 'waits for resume';
  // Due times of later steps follow from the next one (or the start), a step's time apart.
  const first = started ? r.step + 1 : 0;
  const due = started ? (r.nextAt ?? r.startAt) : r.startAt;
  if (i === first) return `at ${due}`;
  return `at ${new Date(Date.parse(due) + (i - first) * r.stepSeconds * 1000).toISOString()}`;
}

/** One rollout with its progress over the steps: `rollout status … ID`. */
export function rolloutDetails(r: Rollout): string {
  const labels = Object.entries(r.match.labels);
  const share = `${Math.round(r.rollback.disconnectedShare * 100)} %`;
  return [
    rolloutSummary(r),
    '',
    table(
      ['STEP', 'PERCENT', 'STATE'],
      r.steps.map((p, i) => [String(i + 1), `${p} %`, stepState(r, i)]),
    ),
    '',
    `Steps ${durationText(r.stepSeconds)} apart, then ${durationText(r.bakeSeconds)} at 100 % before completing.`,
    `Instances: ${labels.length === 0 ? 'all' : `with ${labels.map(([k, v]) => `${k}=${v}`).join(', ')}`}; ` +
      `${r.received} received the new values, ${r.gone} of them disconnected now ` +
      `(it rolls back by itself at ${share}).`,
    `Created by ${r.createdBy} at ${r.createdAt}; last change ${r.updatedAt}.`,
  ].join('\n');
}

/** A version's rollouts, newest first, the active ones marked: `rollout status` without an id. */
export function rolloutList(list: readonly Rollout[]): string {
  if (list.length === 0) return 'No rollouts.';
  const rows = list.map((r) => [
    isActive(r) ? '*' : '',
    r.id,
    r.status,
    `${r.percent} %`,
    r.changes.map((c) => c.key).join(', '),
    r.createdAt,
    r.nextAt ?? '–',
  ]);
  const marked = list.some(isActive) ? '\n* active: its keys change only through it until it ends.' : '';
  return `${table(['', 'ID', 'STATUS', 'PERCENT', 'KEYS', 'CREATED', 'NEXT'], rows)}${marked}`;
}
