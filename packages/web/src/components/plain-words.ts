/**
 * The words people read for the API's names: actions of the history, fields of audit records, kinds
 * of difference. Permissions, roles, scopes, audit actions and entity types come from the protocol
 * package's vocabulary, which the CLI and docs/concepts.md share; no identifier of the code
 * (`ValueSet`, `canAll`) is shown as text.
 */

import { identifierWords } from '@realtime-config/protocol/vocabulary';

export { actionWords, entityTypeWords, policyWords } from '@realtime-config/protocol/vocabulary';

const FIELDS: Readonly<Record<string, string>> = {
  rawValue: 'value',
  valueType: 'type',
  enumDefinition: 'allowed values',
  groupName: 'group',
  groupDescription: 'group description',
  versionLabel: 'label',
  repositoryUrl: 'repository',
  contactEmail: 'contact',
  userId: 'user',
  addedBy: 'added by',
  createdBy: 'created by',
  copiedFrom: 'copied from',
  isSecret: 'secret',
  expiresAt: 'expires',
  lastUsedAt: 'last used',
  revokedAt: 'revoked',
  keyPrefix: 'key prefix',
  eventTypes: 'events',
  url: 'URL',
  stepSeconds: 'step time',
  bakeSeconds: 'bake time',
  startAt: 'start time',
  'match.labels': 'labels to match',
  'rollback.disconnectedShare': 'rollback share',
};

/** A record field as people call it ("value" for rawValue; another camelCase name as words). */
export function fieldWords(field: string): string {
  // An entry's override by its 0-based index (`overrides[1].rawValue`): "Override 2 value".
  const override = /^overrides\[(\d+)\]\.(\w+)$/.exec(field);
  if (override) return `Override ${Number(override[1]) + 1} ${fieldWords(override[2] ?? '')}`;
  if (Object.hasOwn(FIELDS, field)) return FIELDS[field] ?? field;
  return /^[a-z]+[A-Z]/.test(field) ? identifierWords(field).toLowerCase() : field;
}

/** The plain title of a problem by its HTTP status; the server's detail says the rest. */
export function problemTitle(status: number, fallback: string): string {
  if (status === 0) return fallback;
  if (status === 400 || status === 422) return 'Check what you entered';
  if (status === 401) return 'Signed out';
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 409) return 'Not done';
  if (status === 413) return 'Too large';
  if (status === 415) return 'Not a supported file';
  if (status === 429) return 'Too many requests';
  if (status === 503) return 'The server is not ready';
  if (status >= 500) return 'Something went wrong on the server';
  return fallback;
}

/** "1 change", "3 changes". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
