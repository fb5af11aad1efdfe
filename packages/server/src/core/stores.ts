import type { ApiKeyStore } from './api-keys.js';
import type { ChangeRequestStore } from './change-requests.js';
import type { PersonalTokenStore } from './personal-tokens.js';
import type { PresenceStore } from './presence.js';
import type { RolloutStore } from './rollouts.js';
import type { AuditStore } from './audit.js';
import type { ChangeNotice } from './changes.js';
import type { EntryStore } from './entries.js';
import type { ServiceStore } from './services.js';
import type { SamlStateStore, SessionStore } from './sessions.js';
import type { SecretStore } from './secrets.js';
import type { SettingsStore } from './settings.js';
import type { UserStore } from './users.js';
import type { VersionStore } from './versions.js';
import type { ValidatorStore } from './validators.js';
import type { ReportedChange, WebhookStore } from './webhooks.js';
import type { IdGenerator } from '../platform/ids.js';

/** Every store, as one transaction (or one consistent read) sees them. */
export interface Stores {
  readonly services: ServiceStore;
  readonly versions: VersionStore;
  readonly entries: EntryStore;
  readonly audit: AuditStore;
  readonly users: UserStore;
  readonly apiKeys: ApiKeyStore;
  readonly tokens: PersonalTokenStore;
  readonly changeRequests: ChangeRequestStore;
  readonly rollouts: RolloutStore;
  readonly settings: SettingsStore;
  readonly sessions: SessionStore;
  readonly saml: SamlStateStore;
  readonly webhooks: WebhookStore;
  readonly validators: ValidatorStore;
  readonly secrets: SecretStore;
  readonly presence: PresenceStore;
}

export interface WriteContext extends Stores {
  /** Queues a change for the realtime stream; it reaches subscribers only if the transaction commits. */
  recordChange(notice: ChangeNotice): void;
  /**
   * Reports a change to webhooks: their deliveries are written before the commit, in this
   * transaction, so they are committed with the change or not at all.
   */
  report(change: ReportedChange): void;
  /**
   * Ids for what the write creates, the same in every run of the write (`checkedWrites` runs it
   * again once validators have seen its change); absent outside `checkedWrites`.
   */
  readonly ids?: IdGenerator;
  /** Digests of the changes the service's validators passed (`checkedWrites`); absent outside it. */
  readonly validated?: ReadonlySet<string>;
}

/**
 * The only way commands reach storage: reads through `read` (or `readConsistent` for several reads
 * that must see one state), writes through `write`, which runs one transaction and hands the
 * recorded changes to the change feed. A database that cannot be reached fails with UNAVAILABLE.
 */
export interface UnitOfWork {
  /**
   * True while the database is a read-only standby (the instance is a follower, docs/regions.md):
   * `write` refuses with UNAVAILABLE, and writes that may be left out (a session's renewal, a key's
   * last use) are left out.
   */
  readonly readOnly: boolean;
  readonly read: Stores;
  readConsistent<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
  write<T>(fn: (ctx: WriteContext) => Promise<T>): Promise<T>;
}

/**
 * A write broke a uniqueness rule of the database (a name or label taken by a concurrent write);
 * the unit of work throws it in place of the driver's error, so commands can answer 409 or retry.
 */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
}
