import {
  requireServiceAccess,
  type AuditEntityType,
  type AuditRecord,
  type Caller,
  type Page,
  type UnitOfWork,
} from '../../core/index.js';
import { clampPageSize, decodePageToken, encodePageToken } from '../../platform/page-token.js';

const ENTITY_TYPES: readonly AuditEntityType[] = ['Service', 'Version', 'Entry', 'Member', 'ApiKey', 'ChangeRequest'];

/** Accepts an entity type in any case; returns the canonical name, or undefined when unknown. */
export function parseEntityType(value: string): AuditEntityType | undefined {
  return ENTITY_TYPES.find((t) => t.toLowerCase() === value.toLowerCase());
}

export class AuditQueries {
  constructor(private readonly uow: UnitOfWork) {}

  /** The audit trail of a service, newest first. It outlives the service, so an unknown id is just empty. */
  async search(query: {
    /** Who asks: they must be allowed to read the service. */
    caller: Caller;
    serviceId: string;
    entityType: AuditEntityType | null;
    pageSize?: number | null;
    pageToken?: string | null;
  }): Promise<Page<AuditRecord>> {
    await requireServiceAccess(this.uow.read, query.caller, query.serviceId, 'read');
    const limit = clampPageSize(query.pageSize);
    const beforeNum = decodePageToken(query.pageToken);
    const rows = await this.uow.read.audit.search({
      serviceId: query.serviceId,
      entityType: query.entityType,
      beforeNum,
      limit: limit + 1,
    });
    const entities = rows.slice(0, limit);
    const last = entities.at(-1);
    return { entities, nextPageToken: rows.length > limit && last ? encodePageToken(last.num) : '' };
  }
}
