import { sql, type Kysely } from 'kysely';
import type { EntryChange, SecretCipher } from '../../core/index.js';
import { openedValue } from './entry-store.js';
import type { DatabaseSchema } from '../schema.js';

/**
 * PostgreSQL's record of every change (ADR 0005): written with NOTIFY in the writing transaction,
 * read by an instance that lost its LISTEN connection to replay exactly what it missed.
 */
export interface ChangeLogStore {
  /**
   * Records a change and announces it on the channel, in one statement (one round trip): the payload
   * itself when `inline`, otherwise `#<id>` of the record, for listeners to fetch.
   */
  appendAndNotify(
    change: { versionId: string; ts: number; createdAt: number; payload: string },
    channel: string,
    inline: boolean,
  ): Promise<void>;
  payload(id: number): Promise<string | undefined>;
  /**
   * PostgreSQL (docs/regions.md): the xmin of this read's snapshot, and every change written by a
   * transaction at or after `fromTx` (at or after that xmin when null), in timestamp order. A
   * transaction below a snapshot's xmin had ended when the snapshot was taken, so a reader that
   * passes each read's xmin to the next sees every committed change, whatever the commit order of
   * transactions across versions; rows it read before come again and are told apart by their id.
   */
  committedSince(
    fromTx: bigint | null,
  ): Promise<{ xmin: bigint; rows: Array<{ id: number; txId: bigint; payload: string }> }>;
  /** Payloads of the version's changes after `afterTs`, in order. */
  payloadsSince(versionId: string, afterTs: number): Promise<string[]>;
  purgeCreatedBefore(createdAt: number): Promise<void>;
  /** The service of a version, or undefined when the version is gone. */
  serviceOf(versionId: string): Promise<string | undefined>;
  /** The current state of every entry of the version changed after `afterTs` (tombstones included). */
  entriesChangedSince(versionId: string, afterTs: number): Promise<EntryChange[]>;
}

export function createChangeLogStore(db: Kysely<DatabaseSchema>, cipher: SecretCipher): ChangeLogStore {
  return {
    async appendAndNotify(change, channel, inline) {
      const { versionId, ts, createdAt, payload } = change;
      await sql`
        with appended as (
          insert into change_log (version_id, ts, created_at, payload)
          values (${versionId}, ${ts}, ${createdAt}, ${payload})
          returning id
        )
        select pg_notify(${channel}, case when ${inline}::boolean then ${payload}::text else '#' || id::text end)
        from appended`.execute(db);
    },
    async payload(id) {
      const row = await db.selectFrom('change_log').select('payload').where('id', '=', id).executeTakeFirst();
      return row?.payload;
    },
    async committedSince(fromTx) {
      // One statement, so the rows and pg_current_snapshot() come from the same snapshot.
      const { rows } = await sql<{ xmin: string; id: number | null; tx_id: string | null; payload: string | null }>`
        with snap as (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
        select snap.xmin::text as xmin, c.id, c.tx_id::text as tx_id, c.payload
        from snap left join change_log c on c.tx_id >= coalesce(${fromTx === null ? null : fromTx.toString()}::xid8, snap.xmin)
        order by c.ts, c.id`.execute(db);
      const xmin = BigInt(rows[0]?.xmin ?? '0');
      return {
        xmin,
        rows: rows.flatMap((r) =>
          r.id === null || r.tx_id === null || r.payload === null
            ? []
            : [{ id: Number(r.id), txId: BigInt(r.tx_id), payload: r.payload }],
        ),
      };
    },
    async payloadsSince(versionId, afterTs) {
      const rows = await db
        .selectFrom('change_log')
        .select('payload')
        .where('version_id', '=', versionId)
        .where('ts', '>', afterTs)
        .orderBy('ts')
        .execute();
      return rows.map((r) => r.payload);
    },
    async purgeCreatedBefore(createdAt) {
      await db.deleteFrom('change_log').where('created_at', '<', createdAt).execute();
    },
    async serviceOf(versionId) {
      const row = await db.selectFrom('versions').select('service_id').where('id', '=', versionId).executeTakeFirst();
      return row?.service_id;
    },
    async entriesChangedSince(versionId, afterTs) {
      const rows = await db
        .selectFrom('entries')
        .select(['key', 'raw_value', 'generation', 'value_type', 'changed_at', 'deleted', 'is_secret'])
        .where('version_id', '=', versionId)
        .where('changed_at', '>', afterTs)
        .orderBy('changed_at')
        .orderBy('key')
        .execute();
      return rows.map((r): EntryChange => {
        const isSecret = Number(r.is_secret) === 1;
        const opened = openedValue(cipher, Number(r.deleted) === 1 ? null : r.raw_value, isSecret);
        return {
          key: r.key,
          value: opened.rawValue,
          deleted: Number(r.deleted) === 1,
          generation: Number(r.generation),
          valueType: Number(r.value_type),
          timestamp: Number(r.changed_at),
          ...(isSecret ? { isSecret: true } : {}),
          ...(opened.unreadable ? { unreadable: true } : {}),
        };
      });
    },
  };
}
