/**
 * The words people read for the names the API and the configuration use: permissions (policies),
 * roles, API key scopes, audit actions and entity types. The console and the CLI show these words,
 * never the identifiers (`canAll`, `ValueSet`, `ApiKey`); docs/concepts.md uses the same words and
 * names the identifier beside each, for the configuration keys and the REST API that use it.
 * Plain data, no imports: the CLI compiles this file into its package.
 */

export interface Words {
  /** What people call it, a few words ("Administer"). */
  readonly name: string;
  /** What it allows or means, one sentence without a full stop. */
  readonly meaning: string;
}

/**
 * The permissions (policies) that global roles give (`Authorization:Policies:<policy>`), by their
 * identifier. canChange is given by every role of canAll too; canReveal is not.
 */
export const POLICY_WORDS: Readonly<Record<string, Words>> = {
  canAll: {
    name: 'Administer',
    meaning: 'create and delete services, manage users, and act as an owner of every service',
  },
  canChange: {
    name: 'Change values',
    meaning: 'see every service, and change the values of those where you are an editor or owner',
  },
  canReveal: {
    name: 'Reveal secrets',
    meaning: 'read the values of secret entries in plain text (every reveal is audited)',
  },
};

/** The global roles of the Local provider's users, and the permission each gives by default. */
export const GLOBAL_ROLE_WORDS: Readonly<Record<string, Words>> = {
  developer: {
    name: 'developer',
    meaning: 'sees every service, and changes the values of those where they are an editor or owner',
  },
  admin: {
    name: 'admin',
    meaning: 'administers everything (every service as its owner, and users) and reveals secrets',
  },
};

/** The roles of a member of one service. */
export const SERVICE_ROLE_WORDS: Readonly<Record<string, Words>> = {
  viewer: { name: 'viewer', meaning: 'reads the service: values, history, audit log' },
  editor: { name: 'editor', meaning: 'also changes values and reviews change requests' },
  owner: {
    name: 'owner',
    meaning: 'also manages the service: versions, entries, members, API keys, webhooks, validators and protection',
  },
};

/** The scopes of a service's API key. */
export const SCOPE_WORDS: Readonly<Record<string, Words>> = {
  read: {
    name: 'read',
    meaning: 'read values: an application loading and following its configuration, REST reads and exports',
  },
  register: { name: 'register', meaning: 'register versions: an application declaring its configuration as it starts' },
  write: { name: 'write', meaning: 'set, import, restore and promote values; open and apply change requests' },
  secrets: { name: 'secrets', meaning: 'receive secret values in plain text' },
};

/** What each audit action means, in words. */
export const AUDIT_ACTION_WORDS: Readonly<Record<string, string>> = {
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
  OverridesSet: 'Overrides set',
  RolloutCreated: 'Rollout created',
  RolloutStepped: 'Rollout moved to its next step',
  RolloutPaused: 'Rollout paused',
  RolloutResumed: 'Rollout resumed',
  RolloutCompleted: 'Rollout completed',
  RolloutRolledBack: 'Rollout rolled back',
};

/** What each kind of audited thing is called. */
export const ENTITY_TYPE_WORDS: Readonly<Record<string, string>> = {
  Service: 'Service',
  Version: 'Version',
  Entry: 'Entry',
  Member: 'Member',
  ApiKey: 'API key',
  Token: 'Personal access token',
  ChangeRequest: 'Change request',
  Webhook: 'Webhook',
  Validator: 'Validator',
  Rollout: 'Rollout',
};

/**
 * An identifier spelled as words, for a name this file does not know yet (a newer server's):
 * `CanaryStarted` → "Canary started", `canDeploy` → "Can deploy".
 */
export function identifierWords(identifier: string): string {
  const words = identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const known = <T>(table: Readonly<Record<string, T>>, id: string): T | undefined =>
  Object.hasOwn(table, id) ? table[id] : undefined;

/** A permission's words; an unknown policy (a newer server's) by its identifier as words. */
export function policyWords(policy: string): Words {
  return known(POLICY_WORDS, policy) ?? { name: identifierWords(policy), meaning: identifierWords(policy) };
}

/** An audit action in words ("Value set" for ValueSet). */
export function actionWords(action: string): string {
  return known(AUDIT_ACTION_WORDS, action) ?? identifierWords(action);
}

/** An audited entity type in words ("API key" for ApiKey). */
export function entityTypeWords(entityType: string): string {
  return known(ENTITY_TYPE_WORDS, entityType) ?? identifierWords(entityType);
}
