export type AuditEntityType =
  | 'Service'
  | 'Version'
  | 'Entry'
  | 'Member'
  | 'ApiKey'
  | 'Token'
  | 'ChangeRequest'
  | 'Webhook'
  | 'Validator'
  | 'Rollout';
/** `Promoted`: values copied from another version (Compare's copy, the import of `{ fromVersionId }`). */
export type AuditAction =
  | 'Created'
  | 'Updated'
  | 'Deleted'
  | 'ValueSet'
  | 'MemberAdded'
  | 'MemberRemoved'
  | 'Restored'
  | 'Imported'
  | 'Promoted'
  /** A change request's life: approved by a reviewer, applied, rejected, withdrawn by its author. */
  | 'Approved'
  | 'Applied'
  | 'Rejected'
  | 'Withdrawn'
  /** A secret value was shown (reveal, an export with secrets); the record holds no value. */
  | 'Revealed'
  /** A webhook's signing secret was replaced; the record names neither secret. */
  | 'SecretRotated'
  /** An entry's overrides by label were set (docs/targeting.md). */
  | 'OverridesSet'
  /** A rollout's life (docs/rollouts.md), on the rollout; completion and rollback on its entries too. */
  | 'RolloutCreated'
  | 'RolloutStepped'
  | 'RolloutPaused'
  | 'RolloutResumed'
  | 'RolloutCompleted'
  | 'RolloutRolledBack';

export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'Created',
  'Updated',
  'Deleted',
  'ValueSet',
  'MemberAdded',
  'MemberRemoved',
  'Restored',
  'Imported',
  'Promoted',
  'Approved',
  'Applied',
  'Rejected',
  'Withdrawn',
  'Revealed',
  'SecretRotated',
  'OverridesSet',
  'RolloutCreated',
  'RolloutStepped',
  'RolloutPaused',
  'RolloutResumed',
  'RolloutCompleted',
  'RolloutRolledBack',
];

export interface AuditChanges {
  readonly before?: unknown;
  readonly after?: unknown;
  /** A value set applied from a change request: which one, and who approved it. */
  readonly changeRequest?: { readonly id: string; readonly title: string; readonly approvers: readonly string[] };
}

export interface AuditRecord {
  readonly id: string;
  readonly num: number;
  readonly serviceId: string | null;
  readonly entityType: AuditEntityType;
  readonly entityId: string;
  readonly action: AuditAction;
  readonly userId: string | null;
  readonly userName: string | null;
  readonly timestamp: number;
  readonly changes: AuditChanges;
  /** Entry records: the entry's version and key. */
  readonly versionId?: string | null;
  readonly entryKey?: string | null;
}

export interface AuditStore {
  append(record: Omit<AuditRecord, 'num'>): Promise<void>;
  /** Appends several records with one statement, in order. */
  appendMany(records: ReadonlyArray<Omit<AuditRecord, 'num'>>): Promise<void>;
  /** Records of one entity (an entry's whole life), newest first, with num below `beforeNum`. */
  ofEntity(query: { entityId: string; beforeNum: number | null; limit: number }): Promise<AuditRecord[]>;
  /** Entry records of a version up to a time (µs), oldest first; only the given keys when there are some. */
  entryRecordsUntil(query: {
    versionId: string;
    untilMicros: number;
    keys: readonly string[] | null;
  }): Promise<AuditRecord[]>;
  /** Newest first, records with num below `beforeNum` that pass every filter given. */
  search(query: AuditSearch & { beforeNum: number | null; limit: number }): Promise<AuditRecord[]>;
  /**
   * The label each version had last, from the versions' own records (created, renamed, deleted), so
   * a version deleted since still has its name. Versions without records are left out.
   */
  versionLabels(versionIds: readonly string[]): Promise<Map<string, string>>;
}

/** The filters of an audit search; null means "any". */
export interface AuditSearch {
  readonly serviceId: string;
  readonly entityType: AuditEntityType | null;
  /** Entry records of this version. */
  readonly versionId: string | null;
  /** The user's id, without regard to case. */
  readonly userId: string | null;
  readonly action: AuditAction | null;
  /** From and to (both included), µs since the epoch. */
  readonly fromMicros: number | null;
  readonly toMicros: number | null;
}
