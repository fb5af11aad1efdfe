/** Which SQL database is behind the stores. */
export type Dialect = 'sqlite' | 'postgres';

import type { Generated } from 'kysely';

/** Table shapes as Kysely sees them. Times are integer microseconds since the epoch (BIGINT). */
export interface ServicesTable {
  num: Generated<number>;
  id: string;
  name: string;
  /** The name as compared for uniqueness (serviceNameKey); unique. */
  name_key: string | null;
  description: string | null;
  repository_url: string | null;
  contact_email: string | null;
  created_at: number;
  updated_at: number;
}

export interface ServiceMembersTable {
  service_id: string;
  user_id: string;
  /** viewer, editor or owner. */
  role: string;
  added_at: number;
  added_by: string | null;
}

export interface VersionsTable {
  id: string;
  service_id: string;
  version_label: string;
  description: string | null;
  created_at: number;
  updated_at: number;
  /** The version's change clock: timestamp of its last change. */
  last_change_ts: number;
  /** Live entries of the version, kept by every write (Versions:MaxEntries). */
  entry_count: number;
  /** UTF-8 bytes of the texts of its live entries, kept by every write (Versions:MaxBytes). */
  entry_bytes: number;
  /** 1 when changes of its entries go through change requests. */
  is_protected: number;
}

export interface EntriesTable {
  id: string;
  version_id: string;
  key: string;
  name: string;
  raw_value: string | null;
  value_type: number;
  enum_definition: string | null;
  description: string | null;
  group_name: string | null;
  group_description: string | null;
  generation: number;
  created_at: number;
  updated_at: number;
  /** Change-clock timestamp of the last change, deletion included. */
  changed_at: number;
  /** 1 for a tombstone: the entry was deleted and is kept so a backfill can report it. */
  deleted: number;
  /** 1 for a secret: raw_value holds the sealed value (envelope encryption). */
  is_secret: Generated<number>;
  /** The JSON Schema its value must meet (JSON text); null for none. */
  schema: string | null;
  /** Its overrides by label (JSON text, a secret's values sealed); null for none. */
  overrides: string | null;
  /** The rollout running on it with its new value (JSON text, a secret's value sealed); null for none. */
  rollout: string | null;
}

export interface AuditLogsTable {
  num: Generated<number>;
  id: string;
  service_id: string | null;
  entity_type: string;
  entity_id: string;
  action: string;
  user_id: string | null;
  user_name: string | null;
  timestamp: number;
  /** JSON text: { before?, after? } */
  changes: string;
  /** Entry records: the version and key of the entry (null for older records whose entry is gone). */
  version_id: string | null;
  entry_key: string | null;
}

export interface UsersTable {
  username: string;
  password_hash: string;
  role: string;
  created_at: number;
  updated_at: number;
  /** When the password was last set; sessions signed in before then are over. */
  password_changed_at: number;
  /** 1 while the account still has a password that must be changed (the seeded default). */
  must_change_password: number;
}

export interface SessionsTable {
  sid: string;
  data: string;
  /** Expiry in milliseconds since the epoch. */
  expires_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface ChangeLogTable {
  id: Generated<number>;
  version_id: string;
  /** The change's timestamp on its version's change clock. */
  ts: number;
  created_at: number;
  /** JSON of one change notice. */
  payload: string;
}

export interface ApiKeysTable {
  id: string;
  service_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  /** Space-separated scopes: read, register, write, secrets. */
  scopes: string;
  created_at: number;
  created_by: string | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface SamlRequestsTable {
  id: string;
  /** Microseconds since the epoch. */
  created_at: number;
}

export interface SamlAssertionsTable {
  id: string;
  /** Microseconds since the epoch. */
  expires_at: number;
}

export interface PersonalTokensTable {
  id: string;
  user_id: string;
  provider: string;
  /** JSON: the e-mail, name and roles of the session that made the token. */
  identity: string;
  name: string;
  token_hash: string;
  token_prefix: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface ChangeRequestsTable {
  id: string;
  service_id: string;
  version_id: string;
  title: string;
  description: string | null;
  author_id: string;
  author_name: string | null;
  status: string;
  /** JSON: [{ id, rawValue, generation }]. */
  changes: string;
  content_hash: string;
  closed_by: string | null;
  created_at: number;
  updated_at: number;
  /** JSON array of the user ids that edited it; null when none did (or from before it was kept). */
  editors: string | null;
  /** The rollout it started, when it was applied as one. */
  rollout_id: string | null;
}

export interface ChangeRequestApprovalsTable {
  change_request_id: string;
  user_id: string;
  user_name: string | null;
  /** The content hash of the changes approved: an edit leaves the approval behind. */
  content_hash: string;
  approved_at: number;
  /** JSON: the approver when they approved ({ provider, email, name, roles }); null from before it was kept. */
  approver: string | null;
}

export interface WebhooksTable {
  id: string;
  service_id: string;
  url: string;
  description: string | null;
  /** JSON array, or null for every type. */
  event_types: string | null;
  /** JSON array, or null for every version. */
  version_ids: string | null;
  key_prefix: string | null;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ValidatorsTable {
  id: string;
  service_id: string;
  url: string;
  description: string | null;
  enabled: number;
  /** Sealed by the master key when one is configured (`rcsec1.…`), else `whsec_…`, as webhooks' secrets. */
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  num: Generated<number>;
  id: string;
  webhook_id: string;
  service_id: string;
  event_type: string;
  /** The JSON body sent, the same on every attempt. */
  payload: string;
  created_at: number;
  /** pending, succeeded or failed. */
  status: string;
  /** JSON: [{ at, statusCode, durationMs, error }], oldest first. */
  attempts: string;
  failures: number;
  next_attempt_at: number | null;
  /** Claimed by a dispatcher until then (microseconds). */
  lease_until: number | null;
  redelivery: number;
}

/** An open change stream of a server instance on a shared database (core/presence.ts). */
export interface StreamPresenceTable {
  server_instance: string;
  stream_no: number;
  service_id: string;
  version_id: string;
  instance_id: string | null;
  sdk: string | null;
  user_agent: string | null;
  address: string | null;
  /** JSON: [[key, value], …]. */
  labels: string;
  connected_at: number;
  /** The timestamp the client resumed from: it had every change up to it. */
  resumed_from: number;
  last_event: number | null;
  /**
   * Refreshed per row by releases before presence_servers; this release writes a far-future value
   * (the instance's heartbeat is in presence_servers), so that older instances never expire its rows.
   */
  heartbeat: number;
  /** 'secrets' or 'public': whether the stream receives secret entries; null in rows of older releases. */
  audience: string | null;
}

/** The heartbeat of each server instance that writes stream presence (database time, µs). */
export interface PresenceServersTable {
  server_instance: string;
  heartbeat: number;
}

export interface DatabaseSchema {
  rollouts: RolloutsTable;
  webhooks: WebhooksTable;
  validators: ValidatorsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  stream_presence: StreamPresenceTable;
  presence_servers: PresenceServersTable;
  personal_tokens: PersonalTokensTable;
  change_requests: ChangeRequestsTable;
  change_request_approvals: ChangeRequestApprovalsTable;
  api_keys: ApiKeysTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
  change_log: ChangeLogTable;
  services: ServicesTable;
  service_members: ServiceMembersTable;
  versions: VersionsTable;
  entries: EntriesTable;
  audit_logs: AuditLogsTable;
  users: UsersTable;
  sessions: SessionsTable;
  settings: SettingsTable;
}

export interface RolloutsTable {
  id: string;
  service_id: string;
  version_id: string;
  status: string;
  /** JSON: [{id, key, rawValue, generation, isSecret?}], a secret's value sealed (sealed-json.ts). */
  changes: string;
  /** JSON: the percentages. */
  steps: string;
  step: number;
  step_seconds: number;
  bake_seconds: number;
  start_at: number;
  step_started_at: number | null;
  next_at: number | null;
  /** JSON: labels. */
  match: string;
  /** JSON: {disconnectedShare}. */
  rollback: string;
  /** JSON: {in: [instance ids], gone: {id: since}}. */
  received: string;
  created_by: string;
  created_at: number;
  updated_at: number;
  reason: string | null;
}
