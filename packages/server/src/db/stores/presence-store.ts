import type { Kysely, Selectable } from 'kysely';
import type { PresenceRecord, PresenceStore } from '../../core/index.js';
import { inChunks, MAX_BOUND_VALUES } from '../in-chunks.js';
import type { DatabaseSchema, StreamPresenceTable } from '../schema.js';
import { slices } from '../../platform/slices.js';

/** Columns bound per row of a multi-row insert. */
const INSERT_COLUMNS = 13;

function labelsOf(text: string): Array<[string, string]> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
  } catch {
    return [];
  }
}

function toRecord(row: Selectable<StreamPresenceTable>): PresenceRecord {
  return {
    serverInstance: row.server_instance,
    streamNo: Number(row.stream_no),
    serviceId: row.service_id,
    versionId: row.version_id,
    instanceId: row.instance_id,
    sdk: row.sdk,
    userAgent: row.user_agent,
    address: row.address,
    labels: labelsOf(row.labels),
    connectedAt: Number(row.connected_at),
    resumedFrom: Number(row.resumed_from),
    lastEvent: row.last_event === null ? null : Number(row.last_event),
  };
}

export function createPresenceStore(db: Kysely<DatabaseSchema>): PresenceStore {
  return {
    async add(records, heartbeat) {
      for (const slice of slices(records, Math.floor(MAX_BOUND_VALUES / INSERT_COLUMNS))) {
        await db
          .insertInto('stream_presence')
          .values(
            slice.map((r) => ({
              server_instance: r.serverInstance,
              stream_no: r.streamNo,
              service_id: r.serviceId,
              version_id: r.versionId,
              instance_id: r.instanceId,
              sdk: r.sdk,
              user_agent: r.userAgent,
              address: r.address,
              labels: JSON.stringify(r.labels),
              connected_at: r.connectedAt,
              resumed_from: r.resumedFrom,
              last_event: r.lastEvent,
              heartbeat,
            })),
          )
          .onConflict((oc) => oc.columns(['server_instance', 'stream_no']).doNothing())
          .execute();
      }
    },
    async remove(serverInstance, streamNos) {
      await inChunks(streamNos, async (slice) => {
        await db
          .deleteFrom('stream_presence')
          .where('server_instance', '=', serverInstance)
          .where('stream_no', 'in', slice)
          .execute();
        return [];
      });
    },
    async setLastEvent(serverInstance, streamNos, lastEvent) {
      await inChunks(streamNos, async (slice) => {
        await db
          .updateTable('stream_presence')
          .set({ last_event: lastEvent })
          .where('server_instance', '=', serverInstance)
          .where('stream_no', 'in', slice)
          .execute();
        return [];
      });
    },
    async heartbeat(serverInstance, now) {
      await db
        .updateTable('stream_presence')
        .set({ heartbeat: now })
        .where('server_instance', '=', serverInstance)
        .execute();
    },
    async listVersion(versionId, freshSince, exceptServer) {
      const rows = await db
        .selectFrom('stream_presence')
        .selectAll()
        .where('version_id', '=', versionId)
        .where('heartbeat', '>=', freshSince)
        .where('server_instance', '<>', exceptServer)
        .orderBy('connected_at')
        .execute();
      return rows.map(toRecord);
    },
    async removeExpired(before) {
      const result = await db.deleteFrom('stream_presence').where('heartbeat', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async removeServer(serverInstance) {
      await db.deleteFrom('stream_presence').where('server_instance', '=', serverInstance).execute();
    },
  };
}
