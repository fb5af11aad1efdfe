import type { PersonSnapshot } from './identity.js';

/** One value a change request sets: the entry, its new value, the generation it was based on. */
export interface RequestedChange {
  readonly id: string;
  readonly rawValue: string | null;
  readonly generation: number;
  /** The entry is secret: the value is sealed at rest and redacted in answers. */
  readonly isSecret?: boolean;
  /** A secret value that cannot be decrypted. */
  readonly unreadable?: boolean;
}

/**
 * `open` (waiting for approvals), `approved` (enough of them: it may be applied), `applied`,
 * `stale` (an entry changed since: it cannot be applied), `rejected`, `withdrawn`.
 */
export type ChangeRequestStatus = 'open' | 'approved' | 'applied' | 'stale' | 'rejected' | 'withdrawn';

export interface ApprovalRecord {
  readonly userId: string;
  readonly userName: string | null;
  readonly approvedAt: number;
  /** The approver as they were, checked again when the request is applied. */
  readonly approver: PersonSnapshot;
}

export interface ChangeRequestRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly versionId: string;
  readonly title: string;
  readonly description: string | null;
  readonly authorId: string;
  readonly authorName: string | null;
  readonly status: ChangeRequestStatus;
  readonly changes: readonly RequestedChange[];
  /** A digest of the changes: an approval counts only for the changes it was given to. */
  readonly contentHash: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Who applied, rejected or withdrew it. */
  readonly closedBy: string | null;
  /** Everyone who edited it after it was opened: like its author, none of them may approve it. */
  readonly editors: readonly string[];
  readonly approvals: readonly ApprovalRecord[];
  /** The rollout it started, when it was applied as one (docs/rollouts.md); null otherwise. */
  readonly rolloutId: string | null;
}

export interface ChangeRequestStore {
  insert(request: Omit<ChangeRequestRecord, 'approvals' | 'rolloutId'>): Promise<void>;
  /** The request, with the approvals given to its current changes. */
  get(versionId: string, id: string): Promise<ChangeRequestRecord | undefined>;
  /**
   * The same, locked until the transaction ends (PostgreSQL: a row lock; SQLite has one writer):
   * approving, editing, applying and closing one request happen one after the other.
   */
  getForUpdate(versionId: string, id: string): Promise<ChangeRequestRecord | undefined>;
  /** Newest first. */
  list(versionId: string, status: ChangeRequestStatus | null): Promise<ChangeRequestRecord[]>;
  update(
    id: string,
    change: Partial<
      Pick<
        ChangeRequestRecord,
        'title' | 'description' | 'changes' | 'contentHash' | 'status' | 'closedBy' | 'rolloutId'
      >
    > & {
      readonly updatedAt: number;
      readonly editors?: readonly string[];
    },
  ): Promise<void>;
  addApproval(id: string, approval: ApprovalRecord & { readonly contentHash: string }): Promise<void>;
  /** Forgets every approval (the changes were edited). */
  clearApprovals(id: string): Promise<void>;
}
