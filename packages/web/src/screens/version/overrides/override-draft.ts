import { checkValue } from '@realtime-config/protocol';
import type { Entry } from '@realtime-config/protocol/rest';

/** One override as the user edits it: its labels as `key=value` chips and its value. */
export interface DraftOverride {
  /** A local id, stable while the row moves (React's key). */
  readonly id: number;
  readonly labels: readonly string[];
  /** The value typed; for a secret's stored override not typed again, undefined (the console never has it). */
  readonly raw: string | null | undefined;
}

export type StoredOverride = Entry['overrides'][number];

let nextId = 1;

/** The entry's stored overrides as draft rows (a secret's values unknown: the server never sends them). */
export function draftOf(entry: Pick<Entry, 'isSecret' | 'overrides'>): DraftOverride[] {
  return entry.overrides.map((o) => ({
    id: nextId++,
    labels: Object.entries(o.labels).map(([k, v]) => `${k}=${v}`),
    raw: entry.isSecret ? undefined : o.rawValue,
  }));
}

export function newDraft(): DraftOverride {
  return { id: nextId++, labels: [], raw: null };
}

/** `region=eu` → ['region', 'eu']: the key before the first `=`, the value after it (it may hold `=`). */
export function splitLabel(chip: string): [string, string] | null {
  const at = chip.indexOf('=');
  return at <= 0 ? null : [chip.slice(0, at).trim(), chip.slice(at + 1).trim()];
}

/** Why the labels of a row cannot be saved, or null. */
export function labelsProblem(labels: readonly string[]): string | null {
  if (labels.length === 0)
    return 'At least one label (key=value): an override without labels would match every instance.';
  return labelChipsProblem(labels);
}

/** The first chip that is no `key=value` pair, named; null when every one is (or there are none). */
export function labelChipsProblem(labels: readonly string[]): string | null {
  const bad = labels.find((chip) => splitLabel(chip) === null || splitLabel(chip)?.[0] === '');
  return bad === undefined ? null : `“${bad}” is not key=value.`;
}

/** `key=value` chips (every one valid) as the labels object the API takes. */
export function labelsOf(chips: readonly string[]): Record<string, string> {
  return Object.fromEntries(chips.map((chip) => splitLabel(chip) ?? ['', '']));
}

/** Why the value of a row cannot be saved (the value type rules), or null. */
export function valueProblem(
  entry: Pick<Entry, 'valueType' | 'enumDefinition' | 'isSecret'>,
  raw: string | null | undefined,
) {
  if (raw === undefined) return 'Type this value again: a secret’s stored values never reach the console.';
  return checkValue(entry.valueType, raw, entry.enumDefinition);
}

/** The body of PUT …/overrides for the rows (every row valid). */
export function overridesBody(rows: readonly DraftOverride[]) {
  return rows.map((row) => ({
    labels: labelsOf(row.labels),
    rawValue: row.raw ?? null,
  }));
}

const canonical = (labels: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Whether the rows say the same as the stored overrides (nothing to save). */
export function sameAsStored(rows: readonly DraftOverride[], entry: Pick<Entry, 'isSecret' | 'overrides'>): boolean {
  if (rows.length !== entry.overrides.length) return false;
  const body = overridesBody(rows);
  return entry.overrides.every((stored, i) => {
    const row = rows[i];
    const sent = body[i];
    if (!row || !sent || canonical(sent.labels) !== canonical(stored.labels)) return false;
    return entry.isSecret ? row.raw === undefined : row.raw === stored.rawValue;
  });
}

/** The rows with row `index` moved by `by` places (−1 up, +1 down). */
export function moved<T>(rows: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= rows.length) return [...rows];
  const next = [...rows];
  [next[index], next[to]] = [next[to] as T, next[index] as T];
  return next;
}

/** `region=eu, tier=gold` for a stored override's labels. */
export function labelsText(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}
