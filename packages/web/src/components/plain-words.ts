/**
 * The words people read for the API's names: actions of the history, fields of audit records, kinds
 * of difference. The audit log keeps the action names the API filters by (ValueSet, Promoted …);
 * everything else says what happened.
 */

const ACTIONS: Readonly<Record<string, string>> = {
  Created: 'Created',
  Updated: 'Details changed',
  Deleted: 'Deleted',
  ValueSet: 'Value set',
  Restored: 'Restored',
  Imported: 'Imported from a file',
  Promoted: 'Copied from another version',
  MemberAdded: 'Member added',
  MemberRemoved: 'Member removed',
  Approved: 'Change request approved',
  Applied: 'Change request applied',
  Rejected: 'Change request rejected',
  Withdrawn: 'Change request withdrawn',
  Revealed: 'Secret value revealed',
  SecretRotated: 'Webhook secret rotated',
};

/** What an audit action means, in words ("Value set"). */
export function actionWords(action: string): string {
  return Object.hasOwn(ACTIONS, action) ? (ACTIONS[action] ?? action) : action;
}

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
};

/** A record field as people call it ("value" for rawValue). */
export function fieldWords(field: string): string {
  return Object.hasOwn(FIELDS, field) ? (FIELDS[field] ?? field) : field;
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
