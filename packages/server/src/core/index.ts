/**
 * The core below the features: the records and store interfaces, the change vocabulary, who calls
 * and what they may do, and the one entry writer. It imports platform/ only; db/ implements its
 * store interfaces; features build on it.
 */
export {
  actorOfCaller,
  ANONYMOUS_CLIENT,
  anonymousCaller,
  requireSignedIn,
  userCaller,
  type Caller,
} from './caller.js';
export {
  API_KEY_SCOPES,
  DEFAULT_API_KEY_SCOPES,
  type ApiKeyRecord,
  type ApiKeyScope,
  type ApiKeyStore,
} from './api-keys.js';
export type { CredentialRecord, CredentialStore } from './credentials.js';
export { countingApprovals, requireMayApprove, writerOf, wroteContent } from './change-request-review.js';
export type {
  ApprovalRecord,
  ChangeRequestRecord,
  ChangeRequestStatus,
  ChangeRequestStore,
  RequestedChange,
} from './change-requests.js';
export { AUDIT_ACTIONS } from './audit.js';
export type { AuditAction, AuditChanges, AuditEntityType, AuditRecord, AuditSearch, AuditStore } from './audit.js';
export { auditView } from './audit-view.js';
export { createChangeHub, type ChangeHub } from './change-hub.js';
export {
  alreadyHas,
  createLocalChangeFeed,
  entryChangeOf,
  resolveChange,
  type ChangeFeed,
  type ChangeKind,
  type ChangeListener,
  type ChangeNotice,
  type EntryChange,
  type RolloutBefore,
} from './changes.js';
export type { Audience, NewestChanges } from './audience.js';
export type { EntryMetadata, EntryRecord, EntrySchema, EntryStore, NewEntry } from './entries.js';
export { requireSchema, valuesRefused, violationsOf, type CheckedEntry } from './entry-schemas.js';
export { FOLLOWER_READ_ONLY, followerWriteRefused, type InstanceRole, type WalPositions } from './follower.js';
export {
  entryAnswer,
  overridesAnswer,
  redactSecrets,
  secretSides,
  valueAnswer,
  type EntryAnswer,
} from './entry-answer.js';
export { EntryWriter, protectedVersion, type EntryAction, type EntryWriterOptions } from './entry-writer.js';
export { overridesView } from './entry-audit.js';
export {
  actorOf,
  apiKeyActor,
  hasPolicy,
  snapshotOf,
  type Actor,
  type CurrentIdentities,
  type Identity,
  type LocalUserLookup,
  type PersonSnapshot,
  type PolicyName,
  type ProviderKind,
} from './identity.js';
export type { Page } from './page.js';
export {
  memberIdsOf,
  requireServiceAccess,
  roleIn,
  serviceAccessRefusal,
  type RoleLookup,
  type ServiceAction,
} from './service-access.js';
export type { PersonalTokenRecord, PersonalTokenStore } from './personal-tokens.js';
export { isUpToDate, type PresenceCount, type PresenceRecord, type PresenceStore } from './presence.js';
export {
  requireService,
  SERVICE_ROLES,
  type MemberRecord,
  type ServiceFields,
  type ServiceRecord,
  type ServiceRole,
  type ServiceStore,
} from './services.js';
export type { SamlStateStore, SessionStore, StoredSession } from './sessions.js';
export type { SettingsStore } from './settings.js';
export {
  FINGERPRINT_KEY_SETTING,
  mayReveal,
  noMasterKey,
  receivesSecrets,
  requireReveal,
  revealedRecord,
  unreadableSecret,
  redactedValue,
  SecretKeys,
  UnreadableSecret,
  type MasterKeySource,
  type RedactedValue,
  type SecretCipher,
  type SecretStore,
} from './secrets.js';
export {
  fnv1a32,
  inRollout,
  isTargeted,
  labelsMatch,
  matchingOverride,
  MAX_LABELS,
  MAX_LABELS_CHARS,
  MAX_OVERRIDES,
  parseLabels,
  requireValidOverrides,
  resolutionKey,
  resolveEntry,
  UNTARGETED,
  type EntryOverride,
  type EntryRollout,
  type ResolvedEntry,
  type ResolvedSource,
  type TargetedEntry,
  type TargetedInstance,
} from './targeting.js';
export {
  currentPercent,
  DISCONNECTED_REASON,
  unreadableReason,
  isActive,
  lockedByRollout,
  notAllowed,
  ROLLOUT_STATUSES,
  slotOf,
  type RolloutChange,
  type RolloutReceivers,
  type RolloutRecord,
  type RolloutStatus,
  type RolloutStore,
} from './rollouts.js';
export { UniqueViolation, type Stores, type UnitOfWork, type WriteContext } from './stores.js';
export type { LocalRole, UserChange, UserRecord, UserStore } from './users.js';
export {
  entryTextBytes,
  requireWithinVersionCaps,
  sizeChange,
  totalChange,
  type SizeChange,
  type VersionCaps,
} from './version-caps.js';
export { versionDeletionNotice } from './version-deletion.js';
export { checkedWrites, validatorsRefused, ValidationNeeded } from './checked-writes.js';
export type {
  ValidationRequest,
  ValidatorAnswer,
  ValidatorCalls,
  ValidatorFields,
  ValidatorRecord,
  ValidatorStore,
} from './validators.js';
export type { VersionRecord, VersionSize, VersionStore } from './versions.js';
export {
  WEBHOOK_EVENT_TYPES,
  type AttemptOutcome,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryRecord,
  type DeliveryStatus,
  type Outbox,
  type ReportedChange,
  type ReportedEntryChange,
  type WebhookEventType,
  type WebhookFields,
  type WebhookFilter,
  type WebhookRecord,
  type WebhookStore,
} from './webhooks.js';
