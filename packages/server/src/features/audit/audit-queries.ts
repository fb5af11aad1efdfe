import {
  AUDIT_ACTIONS,
  requireServiceAccess,
  type AuditAction,
  type AuditEntityType,
  type AuditRecord,
  type AuditSearch,
  type Caller,
  type Page,
  type UnitOfWork,
} from '../../core/index.js';
import { clampPageSize, decodePageToken, encodePageToken } from '../../platform/page-token.js';

export const ENTITY_TYPES: readonly AuditEntityType[] = [
  'Service',
  'Version',
  'Entry',
  'Member',
  'ApiKey',
  'ChangeRequest',
  'Webhook',
  'Validator',
  'Rollout',
];

/** Accepts an entity type in any case; returns the canonical name, or undefined when unknown. */
export function parseEntityType(value: string): AuditEntityType | undefined {
  return ENTITY_TYPES.find((t) => t.toLowerCase() === value.toLowerCase());
}

/** Accepts an action in any case; returns the canonical name, or undefined when unknown. */
export function parseAction(value: string): AuditAction | undefined {
  return AUDIT_ACTIONS.find((a) => a.toLowerCase() === value.toLowerCase());
}

/** An audit record with the label of its version (entry records; null for the others). */
export interface AuditItem extends AuditRecord {
  readonly versionId: string | null;
  readonly versionLabel: string | null;
}

export class AuditQueries {
  constructor(private readonly uow: UnitOfWork) {}

  /** The audit trail of a service, newest first. It outlives the service, so an unknown id is just empty. */
  async search(
    query: AuditSearch & {
      /** Who asks: they must be allowed to read the service. */
      caller: Caller;
      pageSize?: number | null;
      pageToken?: string | null;
    },
  ): Promise<Page<AuditItem>> {
    const { caller, ...search } = query;
    await requireServiceAccess(this.uow.read, caller, search.serviceId, 'read');
    const limit = clampPageSize(query.pageSize);
    const beforeNum = decodePageToken(query.pageToken);
    const rows = await this.uow.read.audit.search({ ...search, beforeNum, limit: limit + 1 });
    const records = rows.slice(0, limit);
    const versionIds = records.flatMap((r) => (r.entityType === 'Entry' && r.versionId ? [r.versionId] : []));
    const labels = versionIds.length > 0 ? await this.uow.read.audit.versionLabels(versionIds) : new Map();
    const entities = records.map((r): AuditItem => {
      const versionId = r.entityType === 'Entry' ? (r.versionId ?? null) : null;
      return { ...r, versionId, versionLabel: versionId === null ? null : (labels.get(versionId) ?? null) };
    });
    const last = entities.at(-1);
    return { entities, nextPageToken: rows.length > limit && last ? encodePageToken(last.num) : '' };
  }
}
