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

/**
 * A running rollout's new value of an entry (docs/rollouts.md): instances in the rollout at
 * `percent` (`inRollout`) get `rawValue` one generation after the entry's.
 */
export interface EntryRollout {
  readonly id: string;
  readonly rawValue: string | null;
  /** The share of matching instances in, 0–100; 0 while the rollout is scheduled or has not started. */
  readonly percent: number;
  /** Labels an instance must have to be in (all pairs); empty for every instance. */
  readonly match: Readonly<Record<string, string>>;
  /** The new value of a secret cannot be decrypted: nobody receives it. */
  readonly unreadable?: true;
}

/** What resolution reads of an entry (an EntryRecord has it; a change event maps to it). */
export interface TargetedEntry {
  readonly rawValue: string | null;
  readonly generation: number;
  readonly overrides?: readonly EntryOverride[];
  readonly rollout?: EntryRollout | null;
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

/** FNV-1a, 32 bits, over the UTF-8 bytes of a text: the rollout hash rule (docs/rollouts.md). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * Whether an instance is in a rollout at `percent`: it has every label of `match`, and
 * `fnv1a32(rolloutId + ":" + instanceId) mod 10000 < percent × 100` — stable across reconnects and
 * server instances. An instance without an id is in only at 100 %.
 */
export function inRollout(
  rollout: Pick<EntryRollout, 'id' | 'percent' | 'match'>,
  instance: TargetedInstance,
): boolean {
  if (rollout.percent <= 0 || !labelsMatch(rollout.match, instance.labels)) return false;
  if (instance.instanceId === null) return rollout.percent >= 100;
  return fnv1a32(`${rollout.id}:${instance.instanceId}`) % 10000 < rollout.percent * 100;
}

/**
 * The value one instance gets for one entry: the first override its labels match (in list order),
 * else the new value of a running rollout the instance is in (one generation on), else the entry's
 * value. Pure: the same entry and instance give the same answer everywhere. An override change is a
 * change of the entry, so an override's generation is the entry's.
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
  const rollout = entry.rollout;
  if (rollout && inRollout(rollout, instance)) {
    return {
      rawValue: rollout.rawValue,
      generation: entry.generation + 1,
      source: 'rollout',
      overrideIndex: null,
      rolloutId: rollout.id,
      ...(rollout.unreadable ? { unreadable: true as const } : {}),
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
 * that has overrides, whether it is in each entry's rollout): instances with equal keys get the
 * same values, so they share one encoding. Null when the instance matches no override and is in no
 * rollout (it gets the entries' values). It reads what `resolveEntry` reads of an instance.
 */
export function resolutionKey(
  targeted: readonly Pick<TargetedEntry, 'overrides' | 'rollout'>[],
  instance: TargetedInstance,
): string | null {
  let key: string | null = null;
  for (let i = 0; i < targeted.length; i++) {
    const entry = targeted[i] as Pick<TargetedEntry, 'overrides' | 'rollout'>;
    const index = matchingOverride(entry.overrides, instance.labels);
    if (index >= 0) key = `${key ?? ''}${i}:${index},`;
    else if (entry.rollout && inRollout(entry.rollout, instance)) key = `${key ?? ''}${i}:r,`;
  }
  return key;
}

/** Whether an entry's value can differ between instances (it has overrides or a rollout). */
export const isTargeted = (entry: Pick<TargetedEntry, 'overrides' | 'rollout'>): boolean =>
  (entry.overrides?.length ?? 0) > 0 || Boolean(entry.rollout);
