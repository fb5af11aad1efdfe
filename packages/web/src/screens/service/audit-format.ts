import type { AuditRecord } from '@realtime-config/protocol/rest';
import type { RolloutStatus } from '@realtime-config/protocol/rest';
import { fieldWords } from '../../components/plain-words';
import { STATUS_WORDS } from '../version/rollouts/rollout-words';

type Fields = Record<string, unknown>;

const NAME_FIELDS = ['key', 'versionLabel', 'name', 'title', 'userId', 'url'] as const;
const SKIPPED = new Set([
  'updatedAt',
  'createdAt',
  'generation',
  'id',
  'serviceId',
  'num',
  'keyHash',
  'changes',
  // A secret's redaction, shown in its value's place (fieldText).
  'redacted',
  'fingerprint',
  'hasValue',
  'unreadable',
]);

function fieldsOf(value: unknown): Fields | null {
  return typeof value === 'object' && value !== null ? (value as Fields) : null;
}

/** A readable name of the record's entity: an entry's key, a version's label, a service's name, a member's id. */
export function entityName(record: AuditRecord): string {
  const state = fieldsOf(record.changes.after) ?? fieldsOf(record.changes.before);
  // A rollout by the keys it changes.
  if (record.entityType === 'Rollout' && Array.isArray(state?.keys)) return state.keys.map(show).join(', ');
  for (const field of NAME_FIELDS) {
    const value = state?.[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return record.entityId;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A field of a record's side as text. A secret's value is redacted by the server (`redacted`, with
 * the value's fingerprint instead): it reads as the version page shows a secret, never as `null`.
 */
function fieldText(state: Fields, field: string): string {
  if (field === 'overrides' && Array.isArray(state.overrides)) return overridesText(state.overrides);
  if (field === 'rawValue' && state.redacted === true) {
    const fingerprint = typeof state.fingerprint === 'string' ? state.fingerprint.slice(0, 16) : null;
    return `•••••• (secret${fingerprint ? `, fingerprint ${fingerprint}` : ''})`;
  }
  return show(state[field]);
}

/** An entry's overrides by label in words: `region=eu, tier=gold: 60; region=eu: 45`, a secret's redacted. */
function overridesText(overrides: readonly unknown[]): string {
  if (overrides.length === 0) return 'none';
  return overrides
    .map((item) => {
      const o = fieldsOf(item) ?? {};
      const labels = Object.entries(fieldsOf(o.labels) ?? {})
        .map(([k, v]) => `${k}=${show(v)}`)
        .join(', ');
      return `${labels}: ${o.redacted === true ? '••••••' : show(o.rawValue)}`;
    })
    .join('; ');
}

/** What changed, field by field ("value: 30 → 45"); for a creation or deletion, the state it had. */
export function changeSummary(record: AuditRecord): string[] {
  const fields = record.entityType === 'Rollout' ? rolloutSummary(record) : fieldSummary(record);
  return [...fields, ...reviewSummary(record)];
}

/** Where a rollout stood after the action: its status, its share of instances and step, why it ended. */
function rolloutSummary(record: AuditRecord): string[] {
  const state = fieldsOf(record.changes.after);
  if (!state) return [];
  const status = STATUS_WORDS[state.status as RolloutStatus] ?? show(state.status);
  const lines = [`status: ${status.toLowerCase()}`];
  const steps = Array.isArray(state.steps) ? state.steps : [];
  if (typeof state.step === 'number' && steps.length > 0 && state.status !== 'completed') {
    const where = state.status === 'rolled_back' ? 'stopped at' : 'at';
    lines.push(
      `${where} ${show(state.percent)} % (step ${state.step + 1} of ${steps.length}: ${steps.map(show).join(', ')} %)`,
    );
  }
  if (typeof state.reason === 'string') lines.push(`reason: ${state.reason}`);
  return lines;
}

/** A value set applied from a change request names it and who approved it. */
function reviewSummary(record: AuditRecord): string[] {
  const review = fieldsOf(record.changes.changeRequest);
  if (!review) return [];
  const approvers = Array.isArray(review.approvers) ? review.approvers.map(show).join(', ') : '';
  return [`from change request “${show(review.title)}”${approvers ? `, approved by ${approvers}` : ''}`];
}

function fieldSummary(record: AuditRecord): string[] {
  const before = fieldsOf(record.changes.before);
  const after = fieldsOf(record.changes.after);
  if (before && after) {
    return Object.keys(after)
      .filter((field) => !SKIPPED.has(field) && fieldText(before, field) !== fieldText(after, field))
      .map((field) => `${fieldWords(field)}: ${fieldText(before, field)} → ${fieldText(after, field)}`);
  }
  const state = after ?? before;
  if (!state) return [];
  const shown =
    'rawValue' in state
      ? ['rawValue']
      : Object.keys(state)
          .filter((f) => !SKIPPED.has(f) && state[f] !== null && state[f] !== undefined)
          .slice(0, 3);
  return shown.map((field) => `${fieldWords(field)}: ${fieldText(state, field)}`);
}
