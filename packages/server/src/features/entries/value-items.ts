import { checkValue } from '../../protocol.js';
import type { EntryRecord } from '../../core/index.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';

/** One new value of an entry, with the generation it was based on (a value set, a rollout's change). */
export interface ValueSetItem {
  readonly id: string;
  readonly rawValue: string | null;
  readonly generation: number;
}

/**
 * Refuses items whose value does not fit its entry's type (400, each named `<field>[i].rawValue`)
 * or whose generation is not the entry's current one (409, naming each); `found` holds the entries
 * by id, read under the version's lock.
 */
export function requireFitAndCurrent(
  items: readonly ValueSetItem[],
  found: ReadonlyMap<string, EntryRecord>,
  field = '',
): void {
  const errors = dictionary<string[]>();
  const stale: string[] = [];
  for (const [index, item] of items.entries()) {
    const entry = found.get(item.id) as EntryRecord;
    const problem = checkValue(entry.valueType, item.rawValue, entry.enumDefinition);
    if (problem) errors[`${field}[${index}].rawValue`] = [`${entry.key} ${problem}`];
    if (entry.generation !== item.generation) {
      stale.push(`${entry.key} (${entry.id}: sent generation ${item.generation}, current ${entry.generation})`);
    }
  }
  if (Object.keys(errors).length > 0) throw AppError.invalid('Some values do not fit their entry type.', errors);
  if (stale.length > 0) {
    throw AppError.conflict(`Generation mismatch; the entries were changed meanwhile: ${stale.join('; ')}.`);
  }
}
