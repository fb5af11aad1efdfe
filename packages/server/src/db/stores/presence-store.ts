import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Audience, PresenceRecord, PresenceStore } from '../../core/index.js';
import { inChunks, MAX_BOUND_VALUES } from '../in-chunks.js';
import type { DatabaseSchema, Dialect, StreamPresenceTable } from '../schema.js';
import { slices } from '../../platform/slices.js';

/** Columns bound per row of a multi-row insert. */
const INSERT_COLUMNS = 14;

const audienceOf = (text: string | null): Audience | null => (text === 'secrets' || text === 'public' ? text : null);

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
    audience: audienceOf(row.audience),
  };
}

/** The database's clock in µs since the epoch: one clock for every server instance. */
function databaseNow(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000000 as integer)`;
}

/**
 * What a stream row's own `heartbeat` holds (µs, in the year 2255). Releases before the
 * `presence_servers` table refreshed that column and expired rows by it; this value keeps them from
 * expiring the rows of this release's instances during a rolling upgrade. This release ages rows by
 * their instance's heartbeat only, and the column by itself only for rows of older releases.
 */
const NOT_AGED_BY_ITS_OWN_HEARTBEAT = 9_000_000_000_000_000;

export function createPresenceStore(db: Kysely<DatabaseSchema>, dialect: Dialect): PresenceStore {
  const now = () => databaseNow(dialect);
  /** The stream rows of a version held by live instances other than `exceptServer`. */
  const versionStreams = (versionId: string, maxAgeMicros: number, exceptServer: string) =>
    db
      .selectFrom('stream_presence')
      .innerJoin('presence_servers', 'presence_servers.server_instance', 'stream_presence.server_instance')
      .where('stream_presence.version_id', '=', versionId)
      .where('presence_servers.heartbeat', '>=', sql<number>`${now()} - ${maxAgeMicros}`)
      .where('stream_presence.server_instance', '<>', exceptServer);
  return {
    async add(records) {
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
              heartbeat: NOT_AGED_BY_ITS_OWN_HEARTBEAT,
              audience: r.audience,
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
    async heartbeat(serverInstance) {
      const updated = await db
        .updateTable('presence_servers')
        .set({ heartbeat: now() })
        .where('server_instance', '=', serverInstance)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return true;
      await db
        .insertInto('presence_servers')
        .values({ server_instance: serverInstance, heartbeat: now() })
        .onConflict((oc) => oc.column('server_instance').doUpdateSet({ heartbeat: now() }))
        .execute();
      return false;
    },
    async listVersion(versionId, maxAgeMicros, exceptServer, limit) {
      const rows = await versionStreams(versionId, maxAgeMicros, exceptServer)
        .selectAll('stream_presence')
        .orderBy('stream_presence.connected_at')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },
    async fleetOfVersion(versionId, maxAgeMicros, exceptServer, limit, newest) {
      // isUpToDate (core/presence.ts) in SQL: what the stream has reaches the newest change of its
      // audience; a row without an audience (an older release's) is measured against every change.
      const newestOfStream = sql`(case when stream_presence.audience = 'public'
        then cast(${newest.public} as bigint) else cast(${newest.secrets} as bigint) end)`;
      const upToDate = sql`case when stream_presence.resumed_from >= ${newestOfStream}
        or coalesce(stream_presence.last_event, 0) >= ${newestOfStream} then 1 else 0 end`;
      // One statement, one snapshot: the counts are window aggregates over every row, taken before
      // the limit, so they describe the very rows the list is the oldest of.
      const rows = await versionStreams(versionId, maxAgeMicros, exceptServer)
        .selectAll('stream_presence')
        .select([
          sql<number | string | bigint>`count(*) over ()`.as('fleet_total'),
          sql<number | string | bigint | null>`sum(${upToDate}) over ()`.as('fleet_up_to_date'),
        ])
        .orderBy('stream_presence.connected_at')
        .limit(Math.max(1, limit))
        .execute();
      const first = rows[0];
      return {
        records: rows.slice(0, limit).map(toRecord),
        total: Number(first?.fleet_total ?? 0),
        upToDate: Number(first?.fleet_up_to_date ?? 0),
      };
    },
    async removeExpired(maxAgeMicros) {
      const cutoff = sql<number>`${now()} - ${maxAgeMicros}`;
      // Rows of an instance of an older release that died (it refreshed each row's own heartbeat).
      const olderRelease = await db
        .deleteFrom('stream_presence')
        .where('server_instance', 'not in', db.selectFrom('presence_servers').select('server_instance'))
        .where('heartbeat', '<', cutoff)
        .executeTakeFirst();
      // A dead instance's heartbeat and its streams go together: one that comes back meanwhile finds
      // either both (and refreshes them) or neither (and writes its streams again).
      const dead =
        dialect === 'postgres'
          ? await db
              .with('dead', (q) =>
                q.deleteFrom('presence_servers').where('heartbeat', '<', cutoff).returning('server_instance'),
              )
              .deleteFrom('stream_presence')
              .where('server_instance', 'in', (eb) => eb.selectFrom('dead').select('server_instance'))
              .executeTakeFirst()
          : await db.transaction().execute(async (tx) => {
              const deleted = await tx
                .deleteFrom('stream_presence')
                .where(
                  'server_instance',
                  'in',
                  tx.selectFrom('presence_servers').select('server_instance').where('heartbeat', '<', cutoff),
                )
                .executeTakeFirst();
              await tx.deleteFrom('presence_servers').where('heartbeat', '<', cutoff).execute();
              return deleted;
            });
      return Number(olderRelease.numDeletedRows) + Number(dead.numDeletedRows);
    },
    async removeServer(serverInstance) {
      await db.deleteFrom('stream_presence').where('server_instance', '=', serverInstance).execute();
      await db.deleteFrom('presence_servers').where('server_instance', '=', serverInstance).execute();
    },
  };
}
