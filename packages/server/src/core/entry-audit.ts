import { auditView } from './audit-view.js';
import type { AuditAction } from './audit.js';
import { secretSides } from './entry-answer.js';
import type { EntryRecord } from './entries.js';
import type { EntryOverride } from './targeting.js';

/** Actions an entry's audit record can name. */
export type EntryAction = Extract<
  AuditAction,
  | 'Created'
  | 'Updated'
  | 'Deleted'
  | 'ValueSet'
  | 'Restored'
  | 'Imported'
  | 'Promoted'
  | 'OverridesSet'
  | 'RolloutCompleted'
  | 'RolloutRolledBack'
>;

const marked = (sealed: boolean) => (sealed ? { isSecret: true } : {});

/**
 * Overrides as an audit record holds them: each override's value is a value of the entry, so a
 * secret's is marked like the value (the audit store seals what says isSecret, answers redact it).
 */
export const overridesView = (overrides: readonly EntryOverride[], sealed: boolean) =>
  overrides.map((o) => ({ labels: o.labels, rawValue: o.rawValue, ...marked(sealed) }));

/**
 * How an entry's audit record shows a change: a value set only the value and generation, an
 * overrides set only the overrides and generation, a restore or import the whole entry before and
 * after (null where there was none), a creation what was created, a deletion what was deleted, a
 * metadata update both sides.
 */
export function auditChanges(action: EntryAction, before: EntryRecord | null, after: EntryRecord | null) {
  // A secret's values are sealed in the audit log (the audit store seals what says isSecret), side
  // by side as `secretSides` says: history and restores read from each value whether it was secret.
  const secret = secretSides(before, after);
  const view = (e: EntryRecord | null, sealed: boolean) =>
    e && { ...auditView(e), ...marked(sealed), overrides: overridesView(e.overrides, sealed) };
  switch (action) {
    case 'ValueSet':
    case 'RolloutCompleted':
    case 'RolloutRolledBack': {
      const valueOf = (e: EntryRecord | null, sealed: boolean) =>
        e && { key: e.key, rawValue: e.rawValue, generation: e.generation, ...marked(sealed) };
      return { before: valueOf(before, secret.before), after: valueOf(after, secret.after) };
    }
    case 'OverridesSet': {
      // With the value the entry keeps, so history and restores read each record's value as they do a value set's.
      const overridesOf = (e: EntryRecord | null, sealed: boolean) =>
        e && {
          key: e.key,
          rawValue: e.rawValue,
          overrides: overridesView(e.overrides, sealed),
          generation: e.generation,
          ...marked(sealed),
        };
      return { before: overridesOf(before, secret.before), after: overridesOf(after, secret.after) };
    }
    case 'Created':
      return { after: view(after, secret.after) };
    case 'Deleted':
      return { before: view(before, secret.before) };
    default:
      return { before: view(before, secret.before), after: view(after, secret.after) };
  }
}
