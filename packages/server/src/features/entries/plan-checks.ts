import {
  violationsOf,
  type Actor,
  type EntryOverride,
  type EntryRecord,
  type ReportedEntryChange,
  type Stores,
  type ValidatorAnswer,
  type ValidatorCalls,
} from '../../core/index.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError, type Violation } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { checkKey, checkValue } from '../../protocol.js';
import type { Plan, PlannedChange } from './entry-plans.js';

/**
 * What a dry run tells of the rules a plan meets (docs/validation.md): the rules of its entries'
 * schemas each change breaks, and what the service's validators answer to the whole plan. Applying
 * it checks both again, in the entry writer and through `checkedWrites`.
 */

const keyOf = (change: PlannedChange): string => ('entry' in change ? change.entry.key : change.key);

/** The rules of its entry's schema a change's value breaks: a value set the entry's, a creation its own. */
export function changeViolations(change: PlannedChange, entry: EntryRecord | undefined): Violation[] {
  if (change.kind === 'delete') return [];
  if (change.kind === 'set') {
    if (!entry) return [];
    // A value that was secret (a restore's, a promotion's) is checked as one: its violations show no part of it.
    const isSecret = entry.isSecret || change.secretValue === true;
    return [
      ...violationsOf({ ...entry, isSecret }, change.rawValue),
      ...overrideViolations({ ...entry, isSecret }, change.overrides),
    ];
  }
  const created = { ...change.entry, id: null };
  return [...violationsOf(created, change.entry.rawValue), ...overrideViolations(created, change.entry.overrides)];
}

/** The rules its overrides' values break, each named as the entry writer names it. */
function overrideViolations(
  entry: Parameters<typeof violationsOf>[0],
  overrides: readonly EntryOverride[] | undefined,
) {
  return (overrides ?? []).flatMap((o, i) =>
    violationsOf(entry, o.rawValue).map((v) => ({ ...v, message: `override ${i + 1}: ${v.message}` })),
  );
}

/**
 * The plan as the entry writer would report it, for validators: both sides of each change (a
 * creation gets an id of its own, which applying the plan will not reuse).
 */
export function plannedChanges(
  plan: Plan,
  current: ReadonlyMap<string, EntryRecord>,
  at: { versionId: string; now: number; ids: IdGenerator },
): ReportedEntryChange[] {
  const created = (entry: Extract<PlannedChange, { entry: unknown }>['entry'], before?: EntryRecord) => ({
    id: at.ids.newId(),
    versionId: at.versionId,
    ...entry,
    overrides: entry.overrides ?? [],
    generation: (before?.generation ?? 0) + (before ? 2 : 1),
    createdAt: at.now,
    updatedAt: at.now,
    changedAt: at.now,
    deleted: false,
  });
  return plan.changes.flatMap((change): ReportedEntryChange[] => {
    const before = current.get(keyOf(change)) ?? null;
    const action = 'Updated' as const;
    switch (change.kind) {
      case 'set': {
        if (!before) return [];
        const after = {
          ...before,
          rawValue: change.rawValue,
          overrides: change.overrides ?? before.overrides,
          generation: before.generation + 1,
          changedAt: at.now,
        };
        return [{ action, before, after }];
      }
      case 'delete':
        return before ? [{ action, before, after: null }] : [];
      case 'create':
        return [{ action, before: null, after: created(change.entry) }];
      case 'recreate':
        // Deleted, then created again after its tombstone, as the entry writer reports it.
        return [
          ...(before ? [{ action, before, after: null }] : []),
          { action, before: null, after: created(change.entry, before ?? undefined) },
        ];
    }
  });
}

/**
 * The answers of the service's enabled validators to a dry run (none without validators), asked
 * outside any transaction.
 */
export async function validatorAnswers(
  stores: Stores,
  calls: ValidatorCalls,
  request: { serviceId: string; versionId: string; versionLabel: string; actor: Actor },
  changes: readonly ReportedEntryChange[],
): Promise<ValidatorAnswer[]> {
  if (changes.length === 0) return [];
  const validators = await stores.validators.enabled(request.serviceId);
  if (validators.length === 0) return [];
  return calls.ask(validators, { ...request, changes });
}

/** Every value of the plan fits its type and lands where it may: else 400 naming each key. */
export function requireValid(plan: Plan, current: ReadonlyMap<string, EntryRecord>): void {
  const errors = dictionary<string[]>();
  for (const change of plan.changes) {
    const key = keyOf(change);
    let problem: string | null = null;
    if (change.kind === 'set') {
      const entry = current.get(key);
      problem = !entry
        ? 'is not in this version'
        : // A value that was secret never lands in an entry that is not: it would be stored and shown in plaintext.
          change.secretValue === true && !entry.isSecret
          ? 'would get a value that was secret; make it secret here first'
          : checkValue(entry.valueType, change.rawValue, entry.enumDefinition);
    } else if (change.kind === 'create' || change.kind === 'recreate') {
      problem = checkKey(key) ?? checkValue(change.entry.valueType, change.entry.rawValue, change.entry.enumDefinition);
    }
    if (problem) (errors[key] ??= []).push(problem);
  }
  if (Object.keys(errors).length > 0) {
    const named = Object.entries(errors)
      .slice(0, 10)
      .map(([key, messages]) => `${key} ${messages.join(', ')}`)
      .join('; ');
    throw AppError.invalid(`Some values do not fit: ${named}.`, errors);
  }
}

/**
 * A caller who may not reveal secrets learns nothing of a secret's value from a plan (docs/secrets.md):
 * whether a stored secret value (the past of a restore, the source of a promotion) meets its
 * entry's schema would tell something of it, so such a plan needs canReveal. Values the caller
 * sent (a file) are theirs to know.
 */
export function requireMayCheckSecrets(plan: Plan, current: ReadonlyMap<string, EntryRecord>, mayReveal: boolean) {
  if (mayReveal || plan.sentValues === true) return;
  const checked = plan.changes.filter((change) => {
    if (change.kind === 'delete') return false;
    if (change.kind !== 'set')
      return change.entry.isSecret && change.entry.schema !== null && change.entry.rawValue !== null;
    const entry = current.get(change.key);
    return (
      (entry?.isSecret === true || change.secretValue === true) && entry?.schema != null && change.rawValue !== null
    );
  });
  if (checked.length > 0) {
    throw AppError.forbidden(
      `Writing stored secret values into entries with a schema needs canReveal (whether each meets its rules would tell something of it): ${checked
        .slice(0, 10)
        .map(keyOf)
        .join(', ')}.`,
    );
  }
}
