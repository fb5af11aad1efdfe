import { microsToIso } from '../platform/clock.js';

const TIME_FIELDS = new Set(['createdAt', 'updatedAt', 'addedAt', 'lastUsedAt', 'revokedAt']);
// An entry's secrecy is written by the entry writer only where it is true (the audit store seals by it).
const INTERNAL_FIELDS = new Set(['versionId', 'changedAt', 'deleted', 'isSecret', 'unreadable']);

/** How a record appears in an audit log's before/after: times as ISO text like the REST answers, no internals. */
export function auditView(record: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record)
      .filter(([field]) => !INTERNAL_FIELDS.has(field))
      .map(([field, value]) => [
        field,
        TIME_FIELDS.has(field) && typeof value === 'number' ? microsToIso(value) : value,
      ]),
  );
}
