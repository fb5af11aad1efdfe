import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type OpenedTestDatabase } from '@realtime-config/test-support/opened-database';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { createChangeHub, SecretKeys, type ChangeNotice } from '../core/index.js';
import { newMasterKey } from '../platform/envelope-cipher.js';
import { replayWatchedVersions } from './change-log-replay.js';
import type { Database } from './database.js';
import { encodeNotice } from './notice-wire.js';
import { createChangeLogStore } from './stores/change-log-store.js';

/**
 * What a change feed re-reads after it may have missed changes (a lost LISTEN connection): for each
 * watched version, what its listeners can lack, from the change log or the entries.
 */
describe.each(databaseKinds)('the replay of watched versions on %s', (kind) => {
  let opened: OpenedTestDatabase;
  let database: Database;
  const cipher = new SecretKeys(newMasterKey(), []);

  /** Key `Db:Host` of `versionId` set to a, b and c at 10, 20 and 30, each change in the log. */
  async function versionWithThreeChanges(versionId: string): Promise<void> {
    const db = database.db;
    await db
      .insertInto('versions')
      .values({
        id: versionId,
        service_id: 's',
        version_label: versionId,
        created_at: 0,
        updated_at: 0,
        last_change_ts: 30,
        entry_count: 1,
        entry_bytes: 8,
        is_protected: 0,
      })
      .execute();
    await db
      .insertInto('entries')
      .values({
        id: `${versionId}-host`,
        version_id: versionId,
        key: 'Db:Host',
        name: 'Host',
        raw_value: 'c',
        value_type: 1,
        enum_definition: null,
        description: null,
        group_name: null,
        group_description: null,
        generation: 3,
        created_at: 10,
        updated_at: 30,
        changed_at: 30,
        deleted: 0,
      })
      .execute();
    for (const [generation, value] of ['a', 'b', 'c'].entries()) {
      const timestamp = (generation + 1) * 10;
      const notice: ChangeNotice = {
        kind: 'entries',
        serviceId: 's',
        versionId,
        timestamp,
        entries: [{ key: 'Db:Host', value, generation: generation + 1, valueType: 1, deleted: false, timestamp }],
      };
      await db
        .insertInto('change_log')
        .values({ version_id: versionId, ts: timestamp, created_at: timestamp, payload: encodeNotice(notice) })
        .execute();
    }
  }

  /** Replays with one listener on the version after the hub has seen `seen`; what reached the listener. */
  async function replayed(versionId: string, seen: ChangeNotice[]): Promise<ChangeNotice[]> {
    const hub = createChangeHub();
    for (const notice of seen) hub.publish(notice);
    const heard: ChangeNotice[] = [];
    hub.subscribe(versionId, (notice) => heard.push(notice));
    await replayWatchedVersions(createChangeLogStore(database.db, cipher), hub, cipher, (n) => hub.publish(n));
    return heard;
  }
  const valuesOf = (notices: ChangeNotice[]) =>
    notices.flatMap((n) => n.entries.map((e) => `${e.value}@${n.timestamp}`));

  beforeAll(async () => {
    opened = await openTestDatabase(kind);
    database = opened.database;
    await database.db
      .insertInto('services')
      .values({ id: 's', name: 'S', name_key: 's', created_at: 0, updated_at: 0 })
      .execute();
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('replays from the log every change after the last one the hub passed on', async () => {
    await versionWithThreeChanges('v-seen');
    const a = { key: 'Db:Host', value: 'a', generation: 1, valueType: 1, deleted: false, timestamp: 10 };
    const heard = await replayed('v-seen', [
      { kind: 'entries', serviceId: 's', versionId: 'v-seen', timestamp: 10, entries: [a] },
    ]);
    expect(valuesOf(heard)).toEqual(['b@20', 'c@30']);
  });

  it('gives a version the hub has passed nothing of its current state, not every change of its log', async () => {
    await versionWithThreeChanges('v-new');
    const heard = await replayed('v-new', []);
    expect(valuesOf(heard)).toEqual(['c@30']);
    // And tells the caches that find versions by label to look again, in case it was renamed.
    expect(heard.filter((n) => n.kind === 'version-updated')).toHaveLength(1);
  });

  it('tells of a version deleted meanwhile', async () => {
    const heard = await replayed('v-gone', []);
    expect(heard.map((n) => n.kind)).toEqual(['version-deleted']);
  });
});
