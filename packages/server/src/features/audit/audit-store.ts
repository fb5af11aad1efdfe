import type { Kysely, Selectable } from 'kysely';
import type { AuditLogsTable, DatabaseSchema } from '../../db/schema.js';

export type AuditEntityType = 'Service' | 'Version' | 'Entry' | 'Member' | 'ApiKey';
export type AuditAction = 'Created' | 'Updated' | 'Deleted' | 'ValueSet' | 'MemberAdded' | 'MemberRemoved';

export interface AuditChanges {
  readonly before?: unknown;
  readonly after?: unknown;
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
}

export interface AuditStore {
  append(record: Omit<AuditRecord, 'num'>): Promise<void>;
  /** Newest first, records with num below `beforeNum`. */
  search(query: {
    serviceId: string;
    entityType: AuditEntityType | null;
    beforeNum: number | null;
    limit: number;
  }): Promise<AuditRecord[]>;
}

function toRecord(row: Selectable<AuditLogsTable>): AuditRecord {
  return {
    id: row.id,
    num: Number(row.num),
    serviceId: row.service_id,
    entityType: row.entity_type as AuditEntityType,
    entityId: row.entity_id,
    action: row.action as AuditAction,
    userId: row.user_id,
    userName: row.user_name,
    timestamp: Number(row.timestamp),
    changes: JSON.parse(row.changes) as AuditChanges,
  };
}

export function createAuditStore(db: Kysely<DatabaseSchema>): AuditStore {
  return {
    async append(record) {
      await db
        .insertInto('audit_logs')
        .values({
          id: record.id,
          service_id: record.serviceId,
          entity_type: record.entityType,
          entity_id: record.entityId,
          action: record.action,
          user_id: record.userId,
          user_name: record.userName,
          timestamp: record.timestamp,
          changes: JSON.stringify(record.changes),
        })
        .execute();
    },
    async search({ serviceId, entityType, beforeNum, limit }) {
      let query = db.selectFrom('audit_logs').selectAll().where('service_id', '=', serviceId);
      if (entityType) query = query.where('entity_type', '=', entityType);
      if (beforeNum !== null) query = query.where('num', '<', beforeNum);
      const rows = await query.orderBy('num', 'desc').limit(limit).execute();
      return rows.map(toRecord);
    },
  };
}
