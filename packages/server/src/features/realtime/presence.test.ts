import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type OpenedTestDatabase } from '@realtime-config/test-support/opened-database';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import type { Database } from '../../db/database.js';
import { createPresenceStore } from '../../db/stores/presence-store.js';
import { isUpToDate, type PresenceRecord } from '../../core/index.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import { PRESENCE_EXPIRY_MS, StreamPresence } from './presence.js';
import type { StreamClient } from './stream-client.js';

const client: StreamClient = { instanceId: 'app-1', sdk: null, userAgent: null, address: '10.0.0.7', labels: [] };
const silent = { warn: () => undefined };

/** A stream row of `serverInstance` on `versionId`, stream `no`, connected at 1000 + no. */
const presenceRow = (
  serverInstance: string,
  versionId: string,
  no: number,
  state: Pick<PresenceRecord, 'audience' | 'lastEvent' | 'resumedFrom'>,
): PresenceRecord => ({
  serverInstance,
  streamNo: no,
  serviceId: 's',
  versionId,
  instanceId: `app-${no}`,
  sdk: null,
  userAgent: null,
  address: null,
  labels: [],
  connectedAt: 1000 + no,
  ...state,
});

describe.each(databaseKinds)('stream presence shared through the database (%s)', (kind) => {
  let opened: OpenedTestDatabase;
  let database: Database;

  beforeAll(async () => {
    opened = await openTestDatabase(kind);
    database = opened.database;
  });
  afterAll(async () => {
    await opened?.close();
  });

  const instance = (serverInstance: string, clock: Clock = systemClock) =>
    new StreamPresence({
      serverInstance,
      clock,
      store: createPresenceStore(database.db, database.dialect),
      logger: silent,
    });
  /** The streams of a version as `other` lists them (none measured against a change). */
  const listed = async (other: StreamPresence, versionId: string) =>
    (await other.summary(versionId, { secrets: 0, public: 0 }, 100)).streams;
  /** Makes an instance's heartbeat look `ms` older, as if it had stopped writing that long ago. */
  const age = (serverInstance: string, ms: number) =>
    sql`update presence_servers set heartbeat = heartbeat - ${ms * 1000} where server_instance = ${serverInstance}`.execute(
      database.db,
    );
  /** PostgreSQL: the transaction that last wrote each stream row (an update gives the row a new one). */
  const streamRowVersions = async () =>
    kind === 'postgres'
      ? (
          await sql<{ xmin: string }>`select xmin::text as xmin from stream_presence order by stream_no`.execute(
            database.db,
          )
        ).rows
      : [];
  const heartbeatOf = async (serverInstance: string) =>
    Number(
      (
        await database.db
          .selectFrom('presence_servers')
          .select('heartbeat')
          .where('server_instance', '=', serverInstance)
          .executeTakeFirstOrThrow()
      ).heartbeat,
    );

  it('refreshes one heartbeat per instance, and ages it by the database clock, not the instances’ own', async () => {
    // An instance whose clock is an hour behind the others: its streams are listed all the same.
    const behind = instance('behind', { nowMicros: () => systemClock.nowMicros() - 3_600_000_000 });
    const other = instance('other');
    behind.open('s', 'v1', client, 0);
    behind.open('s', 'v1', client, 0);
    await behind.refresh();
    const written = await streamRowVersions();
    const first = await heartbeatOf('behind');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await behind.refresh();
    expect(await heartbeatOf('behind')).toBeGreaterThan(first);
    expect(await streamRowVersions()).toEqual(written); // the heartbeat rewrote no stream row
    expect((await listed(other, 'v1')).map((s) => s.serverInstance)).toEqual(['behind', 'behind']);
    await behind.stop();
    expect(await listed(other, 'v1')).toEqual([]);
  });

  it('reads the list and the counts of another instance in one snapshot while that instance adds and removes rows', async () => {
    const store = createPresenceStore(database.db, database.dialect);
    await store.heartbeat('adder');
    const row = (no: number) =>
      presenceRow('adder', 'v-race', no, { audience: 'public', lastEvent: null, resumedFrom: 0 });
    const newest = { secrets: 0, public: 0 };
    const maxAge = PRESENCE_EXPIRY_MS * 1000;
    const limit = 50;
    for (let round = 0; round < 5; round++) {
      let writing = true;
      const writer = (async () => {
        // 120 streams a few at a time, then half of them gone again, while the reader reads.
        for (let no = 0; no < 120; no += 4) await store.add([0, 1, 2, 3].map((k) => row(no + k)));
        for (let no = 0; no < 60; no += 6)
          await store.remove(
            'adder',
            [0, 1, 2, 3, 4, 5].map((k) => no + k),
          );
        writing = false;
      })();
      const seen: string[] = [];
      while (writing) {
        const fleet = await store.fleetOfVersion('v-race', maxAge, 'reader', limit, newest);
        if (fleet.records.length !== Math.min(fleet.total, limit) || fleet.upToDate !== fleet.total) {
          seen.push(`${fleet.records.length} listed, ${fleet.total} in all, ${fleet.upToDate} up to date`);
        }
      }
      await writer;
      expect(seen).toEqual([]);
      await store.removeServer('adder');
      await store.heartbeat('adder');
    }
    await store.removeServer('adder');
  });

  it('counts the streams up to date by the newest change of their audience (an older release’s rows by every change) and lists the oldest', async () => {
    const store = createPresenceStore(database.db, database.dialect);
    await store.heartbeat('writer');
    const row = (no: number, audience: PresenceRecord['audience'], lastEvent: number | null, resumedFrom = 0) =>
      presenceRow('writer', 'v3', no, { audience, lastEvent, resumedFrom });
    await store.add([
      row(6, 'public', 50), // behind the public change at 100
      row(1, 'public', 150), // has every change a stream without secrets receives
      row(2, 'secrets', 150), // misses the secret's change at 200
      row(3, null, 150), // an older release's row: measured against every change
      row(4, 'secrets', 200),
      row(5, 'public', null, 120), // resumed after the newest public change, sent nothing
    ]);
    const newest = { secrets: 200, public: 100 };
    const maxAge = PRESENCE_EXPIRY_MS * 1000;
    const all = await store.fleetOfVersion('v3', maxAge, 'reader', 100, newest);
    expect(all).toMatchObject({ total: 6, upToDate: 3 });
    expect(all.records.filter((r) => isUpToDate(r, newest)).map((r) => r.streamNo)).toEqual([1, 4, 5]); // the same rule
    // The oldest 4, and still the counts of all 6 (one read gives both).
    const oldest = await store.fleetOfVersion('v3', maxAge, 'reader', 4, newest);
    expect(oldest.records.map((r) => [r.streamNo, r.audience])).toEqual([
      [1, 'public'],
      [2, 'secrets'],
      [3, null],
      [4, 'secrets'],
    ]);
    expect(oldest).toMatchObject({ total: 6, upToDate: 3 });
    expect((await store.listVersion('v3', maxAge, 'reader', 4)).map((r) => r.streamNo)).toEqual([1, 2, 3, 4]);
    expect(await store.fleetOfVersion('v3', maxAge, 'writer', 100, newest)).toEqual({
      records: [],
      total: 0,
      upToDate: 0,
    });
    await store.removeServer('writer');
  });

  it('expires the streams of an instance that stopped writing, and an instance taken for dead writes them again', async () => {
    const stalled = instance('stalled');
    const other = instance('watcher');
    stalled.open('s', 'v2', client, 0);
    await stalled.refresh();
    expect(await listed(other, 'v2')).toHaveLength(1);

    await age('stalled', PRESENCE_EXPIRY_MS + 1000);
    expect(await listed(other, 'v2')).toEqual([]); // too old: left out at once
    await other.refresh(); // the watcher's first refresh also deletes what expired
    expect(
      await database.db.selectFrom('stream_presence').selectAll().where('version_id', '=', 'v2').execute(),
    ).toEqual([]);

    // The stalled instance comes back: its heartbeat was gone, so it writes its open streams again.
    await stalled.refresh();
    expect((await listed(other, 'v2')).map((s) => s.instanceId)).toEqual(['app-1']);
    await stalled.stop();
    await other.stop();
  });
});
