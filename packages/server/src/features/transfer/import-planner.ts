import { checkValue, parseValueType, schemaProblem, ValueType } from '../../protocol.js';
import { requireValidOverrides, type EntryOverride, type EntryRecord, type Stores } from '../../core/index.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';
import type { PlannedChange, Planner } from '../entries/index.js';
import type { ImportedEntry } from './config-files.js';
import { fromTyped, inferValueType, sameValue } from './typed-values.js';

/**
 * An import as a plan: each key of the file gets its value (compared by meaning, so an unchanged
 * value is not written again); keys the version lacks are created when `createMissing` is set
 * (with the file's type and metadata, its schema included, or a type guessed from the value), and
 * refused otherwise. An existing key keeps its metadata and schema: its new value must meet that schema.
 * Keys of the version that the file does not name are left alone. A refusal names every key that
 * cannot be imported, missing or with a value that does not fit, so one correction is enough.
 *
 * An equal value is planned as a set marked `same`: the entry plans drop it, unless the entry or the
 * value is secret and the caller may not compare secrets (then it stays a change, as any value would).
 *
 * @param read the file's entries, given the keys the version has (they decide where nested values stop)
 * @param options.maxEntries Versions:MaxEntries: a file naming more keys than a version may hold is refused
 * @param options.sentValues the values are the caller's (a file, not another version)
 */
export function importPlanner(
  read: (knownKeys: ReadonlySet<string>) => ImportedEntry[],
  options: { createMissing: boolean; maxEntries: number; sentValues: boolean },
): Planner {
  const { createMissing, maxEntries, sentValues } = options;
  return async (stores: Stores, versionId: string) => {
    const live = new Map((await stores.entries.listLive(versionId)).map((e) => [e.key, e]));
    const imported = read(new Set(live.keys()));
    requireWithinEntryCap(imported.length, maxEntries);
    const seen = new Set<string>();
    const errors = dictionary<string[]>();
    const changes: PlannedChange[] = [];
    for (const item of imported) {
      if (seen.has(item.key)) (errors[item.key] ??= []).push('appears more than once');
      seen.add(item.key);
      const current = live.get(item.key);
      const overridesProblem = current ? problemOf(current, item) : null;
      if (overridesProblem) {
        (errors[item.key] ??= []).push(overridesProblem);
      } else if (current) {
        const change = valueChange(current, item);
        const problem =
          change && !change.same && checkValue(current.valueType, change.rawValue, current.enumDefinition);
        if (problem) (errors[item.key] ??= []).push(problem);
        else if (change) changes.push(change);
      } else if (!createMissing) {
        (errors[item.key] ??= []).push('is not in this version (allow creating missing keys to add it)');
      } else {
        const problem = item.meta?.schema == null ? null : schemaProblem(item.meta.schema);
        const entry = newEntry(item);
        const overridesProblem = problemOf(entry, item);
        if (problem) (errors[item.key] ??= []).push(`has a schema that ${problem}`);
        else if (overridesProblem) (errors[item.key] ??= []).push(overridesProblem);
        else changes.push({ kind: 'create', entry });
      }
    }
    const refused = Object.entries(errors);
    if (refused.length > 0) {
      const named = refused
        .slice(0, 10)
        .map(([key, messages]) => `${key} ${messages.join(', ')}`)
        .join('; ');
      const more = refused.length > 10 ? ` (and ${refused.length - 10} more)` : '';
      throw AppError.invalid(`Some keys cannot be imported: ${named}${more}.`, errors);
    }
    return { changes, considered: [...seen], sentValues };
  };
}

/** What is wrong with an item's overrides for its entry (value types, count, labels); null when nothing. */
function problemOf(entry: Pick<EntryRecord, 'key' | 'valueType' | 'enumDefinition'>, item: ImportedEntry) {
  if (!item.meta?.overrides) return null;
  try {
    requireValidOverrides(entry, item.meta.overrides);
    return null;
  } catch (error) {
    return error instanceof AppError ? error.message : String(error);
  }
}

const sameOverrides = (a: readonly EntryOverride[], b: readonly EntryOverride[]) =>
  JSON.stringify(a.map((o) => [o.labels, o.rawValue])) === JSON.stringify(b.map((o) => [o.labels, o.rawValue]));

function rawOf(valueType: number, item: ImportedEntry): string | null {
  return 'raw' in item.value ? item.value.raw : fromTyped(valueType, item.value.typed);
}

function valueChange(current: EntryRecord, item: ImportedEntry): Extract<PlannedChange, { kind: 'set' }> | null {
  const raw = rawOf(current.valueType, item);
  // A secret left out of an export (null, redacted) stays as it is, its overrides too.
  if (current.isSecret && raw === null) return null;
  const overrides = item.meta?.overrides;
  const newOverrides = overrides !== undefined && !sameOverrides(overrides, current.overrides);
  return {
    kind: 'set',
    key: current.key,
    rawValue: raw,
    same: !newOverrides && sameValue(current.valueType, current.rawValue, raw),
    ...(item.meta?.isSecret === true ? { secretValue: true } : {}),
    ...(newOverrides ? { overrides } : {}),
  };
}

function newEntry(item: ImportedEntry) {
  const declared = item.meta?.type !== undefined ? parseValueType(item.meta.type) : undefined;
  const valueType = declared ?? ('raw' in item.value ? ValueType.STRING : inferValueType(item.value.typed));
  return {
    key: item.key,
    name: item.meta?.name ?? item.key,
    rawValue: rawOf(valueType, item),
    valueType,
    enumDefinition: item.meta?.enumDefinition ?? null,
    description: item.meta?.description ?? null,
    groupName: item.meta?.groupName ?? null,
    groupDescription: item.meta?.groupDescription ?? null,
    isSecret: item.meta?.isSecret === true,
    schema: item.meta?.schema ?? null,
    ...(item.meta?.overrides ? { overrides: item.meta.overrides } : {}),
  };
}

/** An import names at most as many keys as a version may hold (checked before any key is looked up). */
export function requireWithinEntryCap(keys: number, maxEntries: number): void {
  if (keys > maxEntries) {
    const count = (n: number) => n.toLocaleString('en-US');
    throw AppError.invalid(
      `The import names ${count(keys)} keys; a version holds at most ${count(maxEntries)} (Versions:MaxEntries).`,
      { body: [`names more than ${count(maxEntries)} keys`] },
    );
  }
}
