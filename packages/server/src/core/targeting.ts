import { AppError } from '../platform/errors.js';
import { dictionary } from '../platform/dictionary.js';
import { checkValue } from '../protocol.js';

/**
 * Targeting (docs/targeting.md): a version's value can differ per instance, decided from what each
 * instance declares (x-rc-instance-id, x-rc-labels). Every place that answers values to instances
 * (GetConfig, the streams, `…/resolve`, OFREP) resolves each entry with `resolveEntry`, so they
 * agree: an override whose labels the instance has, else a running rollout (added by rollouts),
 * else the entry's value.
 */

/** One override of an entry: instances whose labels contain every pair of `labels` get `rawValue`. */
export interface EntryOverride {
  /** Never empty. */
  readonly labels: Readonly<Record<string, string>>;
  /** Null means "use the default", as for a value. */
  readonly rawValue: string | null;
  /** An override of a secret whose stored value cannot be decrypted: nobody receives it. */
  readonly unreadable?: true;
}

/** An entry carries at most this many overrides. */
export const MAX_OVERRIDES = 50;

/** What an instance declares: its id and its labels (none for clients that send no metadata). */
export interface TargetedInstance {
  readonly instanceId: string | null;
  readonly labels: ReadonlyMap<string, string>;
}

/** An instance that declares nothing: it gets every entry's value. */
export const UNTARGETED: TargetedInstance = Object.freeze({ instanceId: null, labels: new Map<string, string>() });

/** What resolution reads of an entry (an EntryRecord has it; a change event maps to it). */
export interface TargetedEntry {
  readonly rawValue: string | null;
  readonly generation: number;
  readonly overrides?: readonly EntryOverride[];
}

export type ResolvedSource = 'value' | 'override' | 'rollout';

/** The value an instance gets for an entry, and where it comes from. */
export interface ResolvedEntry {
  readonly rawValue: string | null;
  readonly generation: number;
  readonly source: ResolvedSource;
  /** The index of the matching override when `source` is `override`; null otherwise. */
  readonly overrideIndex: number | null;
  /** The rollout when `source` is `rollout`; null otherwise. */
  readonly rolloutId: string | null;
  /** The matching override of a secret cannot be decrypted: the instance receives nothing for the entry. */
  readonly unreadable?: true;
}

/** Whether an instance's labels contain every pair of an override's. */
export function labelsMatch(wanted: Readonly<Record<string, string>>, labels: ReadonlyMap<string, string>): boolean {
  for (const key in wanted) if (labels.get(key) !== wanted[key]) return false;
  return true;
}

/** The index of the first override that the labels match, -1 when none does. */
export function matchingOverride(
  overrides: readonly EntryOverride[] | undefined,
  labels: ReadonlyMap<string, string>,
): number {
  if (!overrides || labels.size === 0) return -1;
  return overrides.findIndex((o) => labelsMatch(o.labels, labels));
}

/**
 * The value one instance gets for one entry: the first override its labels match (in list order),
 * else the entry's value. Pure: the same entry and instance give the same answer everywhere.
 * The generation is always the entry's: an override change is a change of the entry.
 */
export function resolveEntry(entry: TargetedEntry, instance: TargetedInstance): ResolvedEntry {
  const index = matchingOverride(entry.overrides, instance.labels);
  if (index >= 0) {
    const override = (entry.overrides as readonly EntryOverride[])[index] as EntryOverride;
    return {
      rawValue: override.rawValue,
      generation: entry.generation,
      source: 'override',
      overrideIndex: index,
      rolloutId: null,
      ...(override.unreadable ? { unreadable: true as const } : {}),
    };
  }
  return {
    rawValue: entry.rawValue,
    generation: entry.generation,
    source: 'value',
    overrideIndex: null,
    rolloutId: null,
  };
}

/** The longest label key and value an override may name. */
const MAX_LABEL_CHARS = 200;

/**
 * Overrides an entry may take, or 400 naming each problem: at most MAX_OVERRIDES, each with a
 * non-empty map of labels and a value that fits the entry's type (its schema is the entry writer's
 * check, like any value's). `field` names where they were sent (`overrides`, an import's key).
 */
export function requireValidOverrides(
  entry: { readonly key: string; readonly valueType: number; readonly enumDefinition: string | null },
  overrides: readonly EntryOverride[],
  field = 'overrides',
): void {
  const errors = dictionary<string[]>();
  const add = (at: string, problem: string) => (errors[at] ??= []).push(problem);
  if (overrides.length > MAX_OVERRIDES) add(field, `at most ${MAX_OVERRIDES} overrides, got ${overrides.length}`);
  overrides.forEach((o, i) => {
    const labels = Object.entries(o.labels);
    if (labels.length === 0) add(`${field}[${i}].labels`, 'must name at least one label');
    for (const [key, value] of labels) {
      if (key === '' || key.length > MAX_LABEL_CHARS || typeof value !== 'string' || value.length > MAX_LABEL_CHARS)
        add(`${field}[${i}].labels`, `each label key (non-empty) and value is at most ${MAX_LABEL_CHARS} characters`);
    }
    const problem = checkValue(entry.valueType, o.rawValue, entry.enumDefinition);
    if (problem) add(`${field}[${i}].rawValue`, `${entry.key} ${problem}`);
  });
  const named = Object.entries(errors);
  if (named.length > 0) {
    const words = named
      .slice(0, 5)
      .map(([at, problems]) => `${at} ${problems.join(', ')}`)
      .join('; ');
    throw AppError.invalid(`The overrides of ${entry.key} are not valid: ${words}.`, errors);
  }
}

/** The longest x-rc-labels header (and the text of an OFREP context's labels). */
export const MAX_LABELS_CHARS = 4096;
/** The most labels an instance (or an OFREP context) declares. */
export const MAX_LABELS = 64;
const NO_LABELS: ReadonlyArray<readonly [string, string]> = Object.freeze([]);

function decode(part: string, what: string, name: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw AppError.invalid(`${name}: ${what} "${part}" is not valid percent-encoding.`);
  }
}

/**
 * Labels as instances send them (x-rc-labels) and `…/resolve?labels=` takes them: `k=v,k2=v2`,
 * with `%`, `,` and `=` inside keys and values percent-encoded. Empty means no labels; a later pair
 * of the same key wins. `name` names the source in the error.
 */
export function parseLabels(
  header: string | undefined,
  name = 'x-rc-labels',
): ReadonlyArray<readonly [string, string]> {
  if (header === undefined || header.trim() === '') return NO_LABELS;
  if (header.length > MAX_LABELS_CHARS) {
    throw AppError.invalid(`${name} is longer than ${MAX_LABELS_CHARS} characters.`);
  }
  const labels = new Map<string, string>();
  for (const raw of header.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw AppError.invalid(`${name}: "${part}" is not key=value.`);
    const key = decode(part.slice(0, eq), 'key', name);
    const value = decode(part.slice(eq + 1), 'value', name);
    labels.delete(key);
    labels.set(key, value);
  }
  if (labels.size > MAX_LABELS) throw AppError.invalid(`${name} has more than ${MAX_LABELS} labels.`);
  return [...labels];
}

/**
 * A key naming what an instance resolves for a set of entries (the override index of each entry
 * that has overrides): instances with equal keys get the same values, so they share one encoding.
 * Null when the instance matches no override of any of them (it gets the entries' values). It
 * reads labels only: whatever else `resolveEntry` comes to read of an instance must enter it too.
 */
export function resolutionKey(
  targeted: readonly { readonly overrides?: readonly EntryOverride[] }[],
  labels: ReadonlyMap<string, string>,
): string | null {
  if (labels.size === 0) return null;
  let key: string | null = null;
  for (let i = 0; i < targeted.length; i++) {
    const index = matchingOverride(targeted[i]?.overrides, labels);
    if (index >= 0) key = `${key ?? ''}${i}:${index},`;
  }
  return key;
}
