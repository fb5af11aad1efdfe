import type { Kysely, Selectable } from 'kysely';
import type {
  ApprovalRecord,
  PersonSnapshot,
  ChangeRequestRecord,
  ChangeRequestStatus,
  ChangeRequestStore,
  RequestedChange,
  SecretCipher,
} from '../../core/index.js';
import { openSecrets, sealSecrets } from './sealed-json.js';
import type { ChangeRequestApprovalsTable, ChangeRequestsTable, DatabaseSchema, Dialect } from '../schema.js';

function toRecord(
  cipher: SecretCipher,
  row: Selectable<ChangeRequestsTable>,
  approvals: readonly ApprovalRecord[],
): ChangeRequestRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    versionId: row.version_id,
    title: row.title,
    description: row.description,
    authorId: row.author_id,
    authorName: row.author_name,
    status: row.status as ChangeRequestStatus,
    changes: openSecrets(JSON.parse(row.changes) as RequestedChange[], cipher),
    contentHash: row.content_hash,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    closedBy: row.closed_by,
    editors: row.editors === null ? [] : (JSON.parse(row.editors) as string[]),
    approvals,
    rolloutId: row.rollout_id,
  };
}

type StoredApprover = Omit<PersonSnapshot, 'id'>;

function approvalOf(row: Selectable<ChangeRequestApprovalsTable>): ApprovalRecord {
  const kept = row.approver === null ? null : (JSON.parse(row.approver) as StoredApprover);
  return {
    userId: row.user_id,
    userName: row.user_name,
    approvedAt: Number(row.approved_at),
    approver: { id: row.user_id, ...(kept ?? { provider: null, email: null, name: row.user_name, roles: [] }) },
  };
}

export function createChangeRequestStore(
  db: Kysely<DatabaseSchema>,
  dialect: Dialect,
  cipher: SecretCipher,
): ChangeRequestStore {
  /** Approvals of the requests, only those given to their current changes, oldest first. */
  const approvalsOf = async (rows: readonly Selectable<ChangeRequestsTable>[]) => {
    const byRequest = new Map<string, ApprovalRecord[]>(rows.map((row) => [row.id, []]));
    if (rows.length === 0) return byRequest;
    const hashes = new Map(rows.map((row) => [row.id, row.content_hash]));
    const approvals = await db
      .selectFrom('change_request_approvals')
      .selectAll()
      .where(
        'change_request_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('approved_at')
      .orderBy('user_id')
      .execute();
    for (const a of approvals) {
      if (hashes.get(a.change_request_id) !== a.content_hash) continue;
      byRequest.get(a.change_request_id)?.push(approvalOf(a));
    }
    return byRequest;
  };

  const one = async (versionId: string, id: string, lock: boolean) => {
    const query = db.selectFrom('change_requests').selectAll().where('id', '=', id).where('version_id', '=', versionId);
    // SQLite has one writer: a write transaction already excludes every other.
    const row = await (lock && dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    if (!row) return undefined;
    return toRecord(cipher, row, (await approvalsOf([row])).get(row.id) ?? []);
  };

  return {
    async insert(request) {
      await db
        .insertInto('change_requests')
        .values({
          id: request.id,
          service_id: request.serviceId,
          version_id: request.versionId,
          title: request.title,
          description: request.description,
          author_id: request.authorId,
          author_name: request.authorName,
          status: request.status,
          changes: JSON.stringify(sealSecrets(request.changes, cipher)),
          content_hash: request.contentHash,
          closed_by: request.closedBy,
          editors: request.editors.length === 0 ? null : JSON.stringify(request.editors),
          created_at: request.createdAt,
          updated_at: request.updatedAt,
        })
        .execute();
    },
    get: (versionId, id) => one(versionId, id, false),
    getForUpdate: (versionId, id) => one(versionId, id, true),
    async list(versionId, status) {
      let query = db.selectFrom('change_requests').selectAll().where('version_id', '=', versionId);
      if (status !== null) query = query.where('status', '=', status);
      // Bounded: a version's requests, closed ones included, are few compared to its changes.
      const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(1000).execute();
      const approvals = await approvalsOf(rows);
      return rows.map((row) => toRecord(cipher, row, approvals.get(row.id) ?? []));
    },
    async update(id, change) {
      await db
        .updateTable('change_requests')
        .set({
          ...(change.title !== undefined ? { title: change.title } : {}),
          ...(change.description !== undefined ? { description: change.description } : {}),
          ...(change.changes !== undefined ? { changes: JSON.stringify(sealSecrets(change.changes, cipher)) } : {}),
          ...(change.contentHash !== undefined ? { content_hash: change.contentHash } : {}),
          ...(change.status !== undefined ? { status: change.status } : {}),
          ...(change.closedBy !== undefined ? { closed_by: change.closedBy } : {}),
          ...(change.rolloutId !== undefined ? { rollout_id: change.rolloutId } : {}),
          ...(change.editors !== undefined ? { editors: JSON.stringify(change.editors) } : {}),
          updated_at: change.updatedAt,
        })
        .where('id', '=', id)
        .execute();
    },
    async addApproval(id, approval) {
      const { id: _id, ...kept } = approval.approver;
      const approver = JSON.stringify(kept);
      await db
        .insertInto('change_request_approvals')
        .values({
          change_request_id: id,
          user_id: approval.userId,
          user_name: approval.userName,
          content_hash: approval.contentHash,
          approved_at: approval.approvedAt,
          approver,
        })
        .onConflict((oc) =>
          oc.columns(['change_request_id', 'user_id']).doUpdateSet({
            content_hash: approval.contentHash,
            approved_at: approval.approvedAt,
            user_name: approval.userName,
            approver,
          }),
        )
        .execute();
    },
    async clearApprovals(id) {
      await db.deleteFrom('change_request_approvals').where('change_request_id', '=', id).execute();
    },
  };
}
