import { formatTimeSpan } from '@realtime-config/protocol';
import type { RolloutSettings } from '@realtime-config/protocol/rest';
import type { Rules } from '../../../components/use-form-fields';
import { describeTimeSpan } from '../editors/value-format';
import { labelsOf } from '../overrides';

/*
 * The settings of a rollout as typed (`Roll out…`, `Apply as rollout…`), their rules (the server's,
 * docs/rollouts.md) and the settings they make.
 */

export const MAX_STEPS = 10;
export const MAX_STEP_SECONDS = 86_400;
export const MAX_BAKE_SECONDS = 604_800;
const MAX_START_AHEAD_MS = 90 * 86_400_000;

/** The dialog's fields as typed; `startAt` is a datetime-local value (the user's time). */
export interface RolloutForm extends Record<string, string> {
  steps: string;
  stepSeconds: string;
  bakeSeconds: string;
  start: 'now' | 'at';
  startAt: string;
  disconnectedShare: string;
}

export const DEFAULT_ROLLOUT: RolloutForm = {
  steps: '10, 50, 100',
  stepSeconds: '60s',
  bakeSeconds: '5m',
  start: 'now',
  startAt: '',
  disconnectedShare: '20',
};

/** Fields whose server errors the form shows on the fields themselves. */
export const ROLLOUT_FIELDS = ['steps', 'stepSeconds', 'bakeSeconds', 'startAt'];

/** `10, 50, 100` (commas or spaces) → [10, 50, 100], or why not. */
export function parseSteps(text: string): number[] | string {
  const parts = text.split(/[\s,;]+/).filter((p) => p !== '');
  if (parts.length === 0) return 'Enter the percentages, e.g. 10, 50, 100';
  if (parts.length > MAX_STEPS) return `At most ${MAX_STEPS} steps`;
  const steps = parts.map((p) => Number(p.replace(/%$/, '')));
  const bad = parts.find((_, i) => !Number.isFinite(steps[i]) || (steps[i] ?? 0) <= 0 || (steps[i] ?? 0) > 100);
  if (bad !== undefined) return `“${bad}” is no percentage above 0, at most 100`;
  if (steps.some((p, i) => i > 0 && p <= (steps[i - 1] ?? 0))) return 'Each step is above the one before';
  if (steps.at(-1) !== 100) return 'The last step is 100';
  return steps;
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?)?$/i;

/** `90`, `90s`, `5m`, `1.5h`, `2 days` → whole seconds, or undefined when it is none. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * (UNITS[(match[2] ?? 's').charAt(0).toLowerCase()] ?? 1);
  return Number.isInteger(seconds) ? seconds : undefined;
}

/** A number of seconds in words, as the time-span editor says them ("1 h 30 min"). */
export function durationWords(seconds: number): string {
  return describeTimeSpan(formatTimeSpan(seconds * 1000)) ?? `${seconds} s`;
}

function durationRule(label: string, min: number, max: number) {
  return (text: string): string | null => {
    const seconds = parseDuration(text);
    if (seconds === undefined) return `${label}: a number of seconds, or with a unit (90s, 5m, 2h)`;
    if (seconds < min || seconds > max) return `${label} is from ${durationWords(min)} to ${durationWords(max)}`;
    return null;
  };
}

export const rolloutRules: Rules<RolloutForm> = {
  steps: (text) => {
    const steps = parseSteps(text);
    return typeof steps === 'string' ? steps : null;
  },
  stepSeconds: durationRule('Step time', 1, MAX_STEP_SECONDS),
  bakeSeconds: durationRule('Bake time', 0, MAX_BAKE_SECONDS),
  startAt: (text, all) => {
    if (all.start === 'now') return null;
    const at = new Date(text).getTime();
    if (text === '' || Number.isNaN(at)) return 'Choose the start time';
    if (at <= Date.now()) return 'The start time has passed: choose a later one, or Now';
    return at > Date.now() + MAX_START_AHEAD_MS ? 'At most 90 days ahead' : null;
  },
  disconnectedShare: (text) => {
    const share = Number(text.trim().replace(/%$/, ''));
    return text.trim() !== '' && share > 0 && share <= 100 ? null : 'A share above 0, at most 100 %';
  },
};

/**
 * The settings as the server takes them (every rule passed): with the values, the body of
 * POST …/rollouts; alone, how an approved change request is applied as a rollout.
 */
export function rolloutSettings(form: RolloutForm, labels: readonly string[]): RolloutSettings {
  return {
    steps: parseSteps(form.steps) as number[],
    stepSeconds: parseDuration(form.stepSeconds) ?? 0,
    bakeSeconds: parseDuration(form.bakeSeconds) ?? 0,
    startAt: form.start === 'at' ? new Date(form.startAt).toISOString() : null,
    match: { labels: labelsOf(labels) },
    rollback: { disconnectedShare: Number(form.disconnectedShare.trim().replace(/%$/, '')) / 100 },
  };
}
