import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  AuditAction,
  AuditChanges,
  AuditEntityType,
  AuditRecord,
  AuditStore,
  SecretCipher,
} from '../../core/index.js';
import { openSecrets, sealSecrets } from './sealed-json.js';
import type { AuditLogsTable, DatabaseSchema, Dialect } from '../schema.js';
import { inChunks } from '../in-chunks.js';
import { insertJsonRows } from '../json-rows.js';

function recordOf(cipher: SecretCipher, row: Selectable<AuditLogsTable>): AuditRecord {
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
    changes: openSecrets(JSON.parse(row.changes) as AuditChanges, cipher),
    versionId: row.version_id,
    entryKey: row.entry_key,
  };
}

function rowOf(cipher: SecretCipher, record: Omit<AuditRecord, 'num'>): Insertable<AuditLogsTable> {
  return {
    id: record.id,
    service_id: record.serviceId,
    entity_type: record.entityType,
    entity_id: record.entityId,
    action: record.action,
    user_id: record.userId,
    user_name: record.userName,
    timestamp: record.timestamp,
    changes: JSON.stringify(sealSecrets(record.changes, cipher)),
    version_id: record.versionId ?? null,
    entry_key: record.entryKey ?? null,
  };
}

export function createAuditStore(db: Kysely<DatabaseSchema>, dialect: Dialect, cipher: SecretCipher): AuditStore {
  const toRecord = (row: Selectable<AuditLogsTable>) => recordOf(cipher, row);
  const toRow = (record: Omit<AuditRecord, 'num'>) => rowOf(cipher, record);
  return {
    async append(record) {
      await db.insertInto('audit_logs').values(toRow(record)).execute();
    },
    async appendMany(records) {
      // One statement whatever their number, numbered in the order given.
      await insertJsonRows(db as Kysely<unknown>, dialect, 'audit_logs', records.map(toRow), {
        id: 'text',
        service_id: 'text',
        entity_type: 'text',
        entity_id: 'text',
        action: 'text',
        user_id: 'text',
        user_name: 'text',
        timestamp: 'bigint',
        changes: 'text',
        version_id: 'text',
        entry_key: 'text',
      });
    },
    async ofEntity({ entityId, beforeNum, limit }) {
      let query = db.selectFrom('audit_logs').selectAll().where('entity_id', '=', entityId);
      if (beforeNum !== null) query = query.where('num', '<', beforeNum);
      return (await query.orderBy('num', 'desc').limit(limit).execute()).map(toRecord);
    },
    async entryRecordsUntil({ versionId, untilMicros, keys }) {
      const query = db
        .selectFrom('audit_logs')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('entity_type', '=', 'Entry')
        .where('timestamp', '<=', untilMicros);
      if (keys === null) return (await query.orderBy('num').execute()).map(toRecord);
      const rows = await inChunks(keys, (slice) => query.where('entry_key', 'in', slice).execute());
      return rows.sort((a, b) => Number(a.num) - Number(b.num)).map(toRecord);
    },
    async search(q) {
      let query = db.selectFrom('audit_logs').selectAll().where('service_id', '=', q.serviceId);
      if (q.entityType) query = query.where('entity_type', '=', q.entityType);
      // The version's entry records come by their own index (version_id, num).
      if (q.versionId) query = query.where('version_id', '=', q.versionId);
      if (q.userId) query = query.where((eb) => eb(eb.fn('lower', ['user_id']), '=', q.userId?.toLowerCase() ?? ''));
      if (q.action) query = query.where('action', '=', q.action);
      if (q.fromMicros !== null) query = query.where('timestamp', '>=', q.fromMicros);
      if (q.toMicros !== null) query = query.where('timestamp', '<=', q.toMicros);
      if (q.beforeNum !== null) query = query.where('num', '<', q.beforeNum);
      const rows = await query.orderBy('num', 'desc').limit(q.limit).execute();
      return rows.map(toRecord);
    },
    async versionLabels(versionIds) {
      const rows = await inChunks([...new Set(versionIds)], (slice) =>
        db
          .selectFrom('audit_logs')
          .select(['entity_id', 'num', 'changes'])
          .where('entity_type', '=', 'Version')
          .where('entity_id', 'in', slice)
          .execute(),
      );
      const labels = new Map<string, string>();
      // Oldest first, so the newest record's label is the one kept.
      for (const row of rows.sort((a, b) => Number(a.num) - Number(b.num))) {
        const changes = JSON.parse(row.changes) as AuditChanges;
        const label = labelOf(changes.after) ?? labelOf(changes.before);
        if (label !== null) labels.set(row.entity_id, label);
      }
      return labels;
    },
  };
}

function labelOf(state: unknown): string | null {
  if (typeof state !== 'object' || state === null || !('versionLabel' in state)) return null;
  return typeof state.versionLabel === 'string' ? state.versionLabel : null;
}
