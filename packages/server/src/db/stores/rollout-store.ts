import type { Kysely, Selectable } from 'kysely';
import type {
  RolloutChange,
  RolloutReceivers,
  RolloutRecord,
  RolloutStatus,
  RolloutStore,
  SecretCipher,
} from '../../core/index.js';
import { openSecrets, sealSecrets } from './sealed-json.js';
import type { DatabaseSchema, Dialect, RolloutsTable } from '../schema.js';

function toRecord(cipher: SecretCipher, row: Selectable<RolloutsTable>): RolloutRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    versionId: row.version_id,
    status: row.status as RolloutStatus,
    changes: openSecrets(JSON.parse(row.changes) as RolloutChange[], cipher),
    steps: JSON.parse(row.steps) as number[],
    step: Number(row.step),
    stepSeconds: Number(row.step_seconds),
    bakeSeconds: Number(row.bake_seconds),
    startAt: Number(row.start_at),
    stepStartedAt: row.step_started_at === null ? null : Number(row.step_started_at),
    nextAt: row.next_at === null ? null : Number(row.next_at),
    match: JSON.parse(row.match) as Record<string, string>,
    rollback: JSON.parse(row.rollback) as RolloutRecord['rollback'],
    received: JSON.parse(row.received) as RolloutReceivers,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    reason: row.reason,
  };
}

function toRow(cipher: SecretCipher, r: RolloutRecord): Selectable<RolloutsTable> {
  return {
    id: r.id,
    service_id: r.serviceId,
    version_id: r.versionId,
    status: r.status,
    // A secret's new value is sealed like the entry's (the rule of stored JSON).
    changes: JSON.stringify(
      sealSecrets(
        r.changes.map(({ unreadable: _u, ...c }) => c),
        cipher,
      ),
    ),
    steps: JSON.stringify(r.steps),
    step: r.step,
    step_seconds: r.stepSeconds,
    bake_seconds: r.bakeSeconds,
    start_at: r.startAt,
    step_started_at: r.stepStartedAt,
    next_at: r.nextAt,
    match: JSON.stringify(r.match),
    rollback: JSON.stringify(r.rollback),
    received: JSON.stringify(r.received),
    created_by: r.createdBy,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    reason: r.reason,
  };
}

const ACTIVE: RolloutStatus[] = ['scheduled', 'running', 'paused', 'baking'];

export function createRolloutStore(db: Kysely<DatabaseSchema>, dialect: Dialect, cipher: SecretCipher): RolloutStore {
  const record = (row: Selectable<RolloutsTable>) => toRecord(cipher, row);
  const one = async (versionId: string, id: string, lock: boolean) => {
    const query = db.selectFrom('rollouts').selectAll().where('id', '=', id).where('version_id', '=', versionId);
    // SQLite has one writer: a write transaction already excludes every other.
    const row = await (lock && dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    return row ? record(row) : undefined;
  };
  return {
    async insert(rollout) {
      await db.insertInto('rollouts').values(toRow(cipher, rollout)).execute();
    },
    get: (versionId, id) => one(versionId, id, false),
    getForUpdate: (versionId, id) => one(versionId, id, true),
    async list(versionId, status) {
      const rows = await db
        .selectFrom('rollouts')
        .selectAll()
        .where('version_id', '=', versionId)
        .$if(status !== null, (q) => q.where('status', '=', status as string))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(record);
    },
    async active(versionId) {
      const rows = await db
        .selectFrom('rollouts')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('status', 'in', ACTIVE)
        .execute();
      return rows.map(record);
    },
    async watched(limit) {
      const rows = await db
        .selectFrom('rollouts')
        .selectAll()
        .where('status', 'in', ['running', 'baking'])
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map(record);
    },
    async due(nowMicros, limit) {
      const rows = await db
        .selectFrom('rollouts')
        .selectAll()
        .where('status', 'in', ACTIVE)
        .where('next_at', '<=', nowMicros)
        .orderBy('next_at')
        .limit(limit)
        .execute();
      return rows.map(record);
    },
    async update(rollout) {
      const {
        id: _id,
        service_id: _s,
        version_id: _v,
        created_at: _c,
        created_by: _b,
        ...row
      } = toRow(cipher, rollout);
      await db.updateTable('rollouts').set(row).where('id', '=', rollout.id).execute();
    },
    async setReceived(id, received) {
      await db
        .updateTable('rollouts')
        .set({ received: JSON.stringify(received) })
        .where('id', '=', id)
        .where('status', 'in', ACTIVE)
        .execute();
    },
  };
}
