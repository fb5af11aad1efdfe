import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { microsFromTimestamp } from '@realtime-config/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchEntryAudit, type RestEntry } from '@realtime-config/test-support/change-history';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import {
  observedEventsOf,
  orderingProblems,
  type ObservedEvent,
} from '@realtime-config/test-support/resuming-subscriber';
import { createTestDatabase, postgresUrl, type TestDatabase } from '@realtime-config/test-support/test-databases';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';

/**
 * Several server instances on one PostgreSQL database (docs/grpc.md, Events: a change committed through
 * any instance reaches the subscribers of every instance). The instances run in-process; changes
 * travel between them only through the database (NOTIFY/LISTEN and the change_log table).
 */

if (!postgresUrl)
  process.stdout.write('Multi-instance tests skipped: they need PostgreSQL and TEST_DATABASE_URL is not set.\n');

const STRING = 1;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Every event of a plain subscription, message by message. */
const messagesOf = (sub: Subscription): ObservedEvent[][] => sub.events.map(observedEventsOf);
/** The events after the first message (the backfill): the live changes. */
const liveOf = (sub: Subscription): ObservedEvent[] => messagesOf(sub).slice(1).flat();
const lastTimestampOf = (sub: Subscription): number =>
  Math.max(0, ...sub.configEvents.map((e) => microsFromTimestamp(e.timestamp!)));
const orderingOf = (name: string, sub: Subscription): string[] =>
  orderingProblems({
    name,
    startTimestamp: 0,
    segments: [{ requestTimestamp: 0, messages: messagesOf(sub), status: undefined, interrupted: false }],
  });

describe.skipIf(!postgresUrl)('several instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let adminA: ApiClient;
  let adminB: ApiClient;
  let grpcA: GrpcTestClient;
  let grpcB: GrpcTestClient;
  let serviceId: string;
  /** A connection of the test's own to the test database. */
  let sql: pg.Client;
  const subscriptions: Subscription[] = [];
  /** The role of the instance whose LISTEN connection the tests cut (see below). */
  const role = `rc_listener_${randomBytes(4).toString('hex')}`;

  const databaseUrl = (): string =>
    (database.args.find((x) => x.startsWith('--Database:Url=')) as string).slice('--Database:Url='.length);

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    a = await startTestServer({ database });
    b = await startTestServer({ database });
    adminA = await a.admin();
    adminB = await b.admin();
    grpcA = new GrpcTestClient(`127.0.0.1:${a.port}`);
    grpcB = new GrpcTestClient(`127.0.0.1:${b.port}`);
    sql = new pg.Client({ connectionString: databaseUrl() });
    await sql.connect();
    serviceId = (await adminA.post('/api/services', { name: 'multi-instance' })).body.id;
  });
  afterAll(async () => {
    for (const s of subscriptions) s.cancel();
    grpcA?.close();
    grpcB?.close();
    await b?.close();
    await a?.close();
    await sql?.end();
    await database?.drop();
    // Roles belong to the cluster, not to the dropped database.
    const cluster = new pg.Client({ connectionString: postgresUrl });
    await cluster.connect();
    await cluster.query(`drop role if exists ${role}`).finally(() => cluster.end());
  });

  /** A version with entries `keys` (values `initial-<key>`), made through instance A. */
  const createVersion = async (label: string, keys: readonly string[]) => {
    const versionId = (await adminA.post(`/api/configversions/${serviceId}`, { versionLabel: label })).body
      .id as string;
    const entries = new Map<string, RestEntry>();
    for (const key of keys) {
      const res = await adminA.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType: STRING,
        rawValue: `initial-${key}`,
      });
      expect(res.status, res.text).toBe(201);
      entries.set(key, res.body as RestEntry);
    }
    return { versionId, base: `/api/configentries/${serviceId}/${versionId}`, entries };
  };

  /** A subscription from the beginning, once its backfill has arrived. */
  const subscribe = async (client: GrpcTestClient, versionId: string): Promise<Subscription> => {
    const sub = client.subscribe({ serviceId, versionId });
    subscriptions.push(sub);
    await sub.until((s) => s.events.length > 0);
    return sub;
  };

  /** The version's last change: what the catch-up of a brand-new subscriber ends with. */
  const lastChange = async (versionId: string): Promise<number> => {
    const sub = grpcA.subscribe({ serviceId, versionId });
    try {
      await sub.until((s) => s.events.length > 0);
      return lastTimestampOf(sub);
    } finally {
      sub.cancel();
    }
  };

  const setValues = async (
    client: ApiClient,
    base: string,
    items: Array<{ id: string; rawValue: string; generation: number }>,
  ) => {
    const res = await client.put(`${base}/set`, items);
    expect(res.status, res.text).toBe(200);
    return res.body as RestEntry[];
  };

  const entriesOf = async (client: ApiClient, base: string): Promise<RestEntry[]> => {
    const res = await client.get(base);
    expect(res.status).toBe(200);
    return res.body as RestEntry[];
  };

  it('subscribers of both instances see one identical ordered sequence of the writes made through both', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `Shared:K${i}`);
    const { versionId, base } = await createVersion('interleaved', keys);
    const subs = [
      ...(await Promise.all([1, 2, 3].map(() => subscribe(grpcA, versionId)))),
      ...(await Promise.all([1, 2, 3].map(() => subscribe(grpcB, versionId)))),
    ];
    const names = ['A1', 'A2', 'A3', 'B1', 'B2', 'B3'];
    const setupAudit = (await fetchEntryAudit(adminA, serviceId)).length;

    // Two management clients, one per instance, racing on the same entries (a 409 means re-read).
    const writeThrough = async (client: ApiClient, tag: string): Promise<void> => {
      let ok = 0;
      let n = 0;
      while (ok < 25) {
        n++;
        const live = await entriesOf(client, base);
        if (ok === 5 || ok === 15) {
          const extra = live.find((e) => e.key === `Extra:${tag}`);
          const res = extra
            ? await client.delete(`${base}/${extra.id}`)
            : await client.post(base, { key: `Extra:${tag}`, valueType: STRING, rawValue: `${tag}-${n}` });
          expect([201, 204]).toContain(res.status);
          ok++;
          continue;
        }
        const chosen = live
          .filter((e) => !e.key.startsWith('Extra:'))
          .sort(() => Math.random() - 0.5)
          .slice(0, 1 + (n % 3));
        const res = await client.put(
          `${base}/set`,
          chosen.map((e, i) => ({ id: e.id, rawValue: `${tag}-${n}-${i}`, generation: e.generation })),
        );
        if (res.status === 200) ok++;
        else expect(res.status, res.text).toBe(409);
      }
    };
    await Promise.all([writeThrough(adminA, 'A'), writeThrough(adminB, 'B')]);

    const last = await lastChange(versionId);
    for (const sub of subs) await sub.until((s) => lastTimestampOf(s) >= last);

    // The committed history in commit order, as the audit log has it.
    const committed = (await fetchEntryAudit(adminA, serviceId))
      .slice(setupAudit)
      .map((r) =>
        r.action === 'Deleted'
          ? [r.changes.before.key, null, r.changes.before.generation + 1]
          : [r.changes.after.key, r.changes.after.rawValue, r.changes.after.generation],
      );
    const reference = liveOf(subs[0]!);
    expect(reference.map((e) => [e.key, e.value, e.generation])).toEqual(committed);
    expect(reference.some((e) => e.value?.startsWith('A-'))).toBe(true);
    expect(reference.some((e) => e.value?.startsWith('B-'))).toBe(true);
    subs.forEach((sub, i) => {
      expect(orderingOf(names[i]!, sub)).toEqual([]);
      expect(liveOf(sub), names[i]).toEqual(reference);
    });

    // Both instances answer GetConfig with the stored state.
    const stored = (await entriesOf(adminA, base)).map((e) => [e.key, e.rawValue, e.generation]);
    for (const client of [grpcA, grpcB]) {
      const config = await client.getConfig({ serviceId, version: 'interleaved' });
      expect(config.entries.map((e) => [e.key, e.value ?? null, e.generation])).toEqual(stored);
    }
  });

  it('GetConfig through B reflects a change made through A once it has arrived', async () => {
    const { versionId, base, entries } = await createVersion('snapshot', ['X', 'Y']);
    const before = await grpcB.getConfig({ serviceId, version: 'snapshot' }); // B now holds a snapshot
    expect(before.entries.map((e) => [e.key, e.value, e.generation])).toEqual([
      ['X', 'initial-X', 1],
      ['Y', 'initial-Y', 1],
    ]);
    const onB = await subscribe(grpcB, versionId);

    await setValues(adminA, base, [{ id: entries.get('X')!.id, rawValue: 'x-from-A', generation: 1 }]);
    expect((await adminA.delete(`${base}/${entries.get('Y')!.id}`)).status).toBe(204);
    expect((await adminA.post(base, { key: 'Z', valueType: STRING, rawValue: 'z-from-A' })).status).toBe(201);
    await onB.until((s) => s.configEvents.some((e) => e.key === 'Z'));

    const after = await grpcB.getConfig({ serviceId, version: 'snapshot' });
    expect(after.entries.map((e) => [e.key, e.value, e.generation])).toEqual([
      ['X', 'x-from-A', 2],
      ['Z', 'z-from-A', 1],
    ]);
  });

  it('a version deleted through A ends the streams on B with NOT_FOUND after the deletion events', async () => {
    const { versionId, base, entries } = await createVersion('doomed', ['P', 'Q']);
    await setValues(adminA, base, [{ id: entries.get('P')!.id, rawValue: 'p2', generation: 1 }]);
    expect((await grpcB.getConfig({ serviceId, version: 'doomed' })).entries).toHaveLength(2);
    const subs = [
      await subscribe(grpcB, versionId),
      await subscribe(grpcB, versionId),
      await subscribe(grpcA, versionId),
    ];
    const backfillEnd = lastTimestampOf(subs[0]!);

    expect((await adminA.delete(`/api/configversions/${serviceId}/${versionId}`)).status).toBe(204);
    for (const [i, sub] of subs.entries()) {
      await sub.until((s) => s.status !== undefined);
      expect(sub.status?.code, `subscriber ${i}`).toBe(grpc.status.NOT_FOUND);
      const messages = messagesOf(sub);
      expect(messages).toHaveLength(2);
      expect(messages[1]!.map((e) => [e.key, e.value, e.generation])).toEqual([
        ['P', null, 3],
        ['Q', null, 2],
      ]);
      expect(messages[1]![0]!.timestamp).toBeGreaterThan(backfillEnd);
    }
    expect((await grpcB.getConfig({ serviceId, version: 'doomed' })).entries).toEqual([]);
    const late = grpcB.subscribe({ serviceId, versionId });
    await late.until((s) => s.status !== undefined);
    expect(late.status?.code).toBe(grpc.status.NOT_FOUND);
  });

  it('a session signed in on A is valid on B, and signing out on A ends it on B', async () => {
    const signedIn = await a.client().login('admin', ADMIN_PASSWORD);
    const cookie = signedIn.sessionCookie as string;
    expect(cookie).toBeTruthy();
    const me = await b.client().get('/api/auth/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: 'admin', policies: expect.arrayContaining(['canAll']) });
    expect((await b.client().post('/api/services/search', {}, { headers: { cookie } })).status).toBe(200);

    expect((await signedIn.post('/auth/logout')).status).toBe(204);
    expect((await b.client().get('/api/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('a change too large for a NOTIFY payload reaches the subscribers of the other instance intact', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `Large:K${String(i).padStart(2, '0')}`);
    const { versionId, base, entries } = await createVersion('large', keys);
    const onB = await subscribe(grpcB, versionId);
    const onA = await subscribe(grpcA, versionId);
    const parkedBefore = Number((await sql.query('select count(*) as n from change_log')).rows[0].n);

    // 1 KiB each, with what JSON escapes and multi-byte characters: about 55 KB of payload.
    const kib = (i: number): string =>
      `${i}:"quoted" \\back\\slash\nnew line € ✓ 🚀 `.padEnd(1024, String.fromCharCode(97 + (i % 26)));
    await setValues(
      adminA,
      base,
      keys.map((key, i) => ({ id: entries.get(key)!.id, rawValue: kib(i), generation: 1 })),
    );
    // 200 KiB in one value; and 3000 characters that are 9000 bytes (the limit is in bytes).
    const huge = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(4, '0')}`.padEnd(1024, '~')).join('');
    const euros = '€'.repeat(3000);
    await setValues(adminA, base, [{ id: entries.get('Large:K00')!.id, rawValue: huge, generation: 2 }]);
    await setValues(adminA, base, [{ id: entries.get('Large:K01')!.id, rawValue: euros, generation: 2 }]);

    const last = await lastChange(versionId);
    for (const sub of [onB, onA]) await sub.until((s) => lastTimestampOf(s) >= last);
    // The three changes went through the change_log table, not inline.
    const parkedAfter = Number((await sql.query('select count(*) as n from change_log')).rows[0].n);
    expect(parkedAfter - parkedBefore).toBe(3);

    for (const sub of [onB, onA]) {
      const messages = messagesOf(sub).slice(1);
      const live = messages.flat();
      expect(live).toHaveLength(52);
      // The batch arrives whole, in one message (which may also carry the next changes), values intact.
      expect(messages[0]!.length).toBeGreaterThanOrEqual(50);
      expect(live.slice(0, 50).map((e) => [e.key, e.value, e.generation])).toEqual(
        keys.map((key, i) => [key, kib(i), 2]),
      );
      expect(live.slice(50).map((e) => [e.key, e.value, e.generation])).toEqual([
        ['Large:K00', huge, 3],
        ['Large:K01', euros, 3],
      ]);
    }
    const config = await grpcB.getConfig({ serviceId, version: 'large' });
    expect(config.entries.find((e) => e.key === 'Large:K00')?.value).toBe(huge);
    expect(config.entries.find((e) => e.key === 'Large:K01')?.value).toBe(euros);
    expect(config.entries.find((e) => e.key === 'Large:K49')?.value).toBe(kib(49));
  });

  /**
   * Instance L connects as its own role, so the test can refuse it new connections (NOLOGIN) while
   * its LISTEN connection is gone: changes made meanwhile are certain to be missed by LISTEN and can
   * only reach L's subscribers through the re-sync after it reconnects. Each test starts its own L:
   * its LISTEN connection shows `LISTEN rc_changes` in pg_stat_activity only until the feed's health
   * check (every 15 s) runs `select 1` on it.
   */
  describe('when an instance loses its LISTEN connection', () => {
    let roleReady = false;
    let listenerUrl = '';
    const started: TestServer[] = [];

    beforeAll(async () => {
      const url = new URL(databaseUrl());
      const password = url.password ? ` password '${decodeURIComponent(url.password).replace(/'/g, "''")}'` : '';
      try {
        await sql.query(`create role ${role} login superuser${password}`);
        roleReady = true;
      } catch (error) {
        process.stdout.write(
          `LISTEN re-sync tests skipped: cannot create a role for the listening instance (${String(error)}).\n`,
        );
        return;
      }
      url.username = role;
      listenerUrl = url.toString();
    });
    afterAll(async () => {
      for (const server of started.splice(0)) await server.close();
      if (roleReady) await sql.query(`alter role ${role} login`);
    });

    /** Instance L and a gRPC client of it; `stop` closes both. */
    const startListener = async () => {
      const l = await startTestServer({
        database: { name: 'postgres', args: [`--Database:Url=${listenerUrl}`], drop: () => Promise.resolve() },
      });
      started.push(l);
      const grpcL = new GrpcTestClient(`127.0.0.1:${l.port}`);
      const stop = async (): Promise<void> => {
        grpcL.close();
        started.splice(started.indexOf(l), 1);
        await l.close();
      };
      return { grpcL, stop };
    };

    const listenConnections = async () =>
      (
        await sql.query<{ pid: number; application_name: string; state: string; query: string }>(
          `select pid, application_name, state, query from pg_stat_activity where datname = current_database() and usename = $1 and application_name = 'realtime-config-listen'`,
          [role],
        )
      ).rows;

    /** Cuts L's LISTEN connection and keeps it from reconnecting until `restore` is called. */
    const cutListener = async (): Promise<{ pid: number; restore: () => Promise<void> }> => {
      const [listener, ...others] = await listenConnections();
      expect(others).toEqual([]);
      expect(listener).toMatchObject({ query: 'LISTEN rc_changes', state: 'idle' });
      await sql.query(`alter role ${role} nologin`);
      const killed = await sql.query(
        `select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and usename = $1 and application_name = 'realtime-config-listen'`,
        [role],
      );
      expect(killed.rows).toEqual([{ ok: true }]);
      for (
        let i = 0;
        (await sql.query('select 1 from pg_stat_activity where pid = $1', [listener!.pid])).rowCount !== 0;
        i++
      ) {
        if (i > 500) throw new Error('the LISTEN backend did not go away');
        await sleep(10);
      }
      return { pid: listener!.pid, restore: () => sql.query(`alter role ${role} login`).then(() => undefined) };
    };

    it('re-syncs: the changes made meanwhile reach its subscribers in order, each once', async (ctx) => {
      if (!roleReady) return ctx.skip();
      const { grpcL, stop } = await startListener();
      try {
        const keys = Array.from({ length: 10 }, (_, i) => `Listen:K${i}`);
        const { versionId, base, entries } = await createVersion('listen', keys);
        const onL = [await subscribe(grpcL, versionId), await subscribe(grpcL, versionId)];
        const onA = await subscribe(grpcA, versionId);
        const { pid, restore } = await cutListener();

        // Each change touches other keys, so a re-sync (which reads the current rows) can lose nothing.
        const id = (key: string): string => entries.get(key)!.id;
        await setValues(adminA, base, [{ id: id('Listen:K0'), rawValue: 'during-1', generation: 1 }]);
        await setValues(adminA, base, [
          { id: id('Listen:K1'), rawValue: 'during-2', generation: 1 },
          { id: id('Listen:K2'), rawValue: 'during-3', generation: 1 },
        ]);
        expect((await adminA.delete(`${base}/${id('Listen:K3')}`)).status).toBe(204);
        expect((await adminA.post(base, { key: 'Listen:K10', valueType: STRING, rawValue: 'during-4' })).status).toBe(
          201,
        );
        await setValues(adminA, base, [{ id: id('Listen:K4'), rawValue: 'during-5', generation: 1 }]);
        const during = await lastChange(versionId);
        await onA.until((s) => lastTimestampOf(s) >= during);
        // L cannot have them: it has no LISTEN connection and may not open one.
        for (const sub of onL) expect(sub.events).toHaveLength(1);
        expect(await listenConnections()).toEqual([]);

        await restore();
        for (const sub of onL) await sub.until((s) => lastTimestampOf(s) >= during, 20_000);
        const [relistened] = await listenConnections();
        expect(relistened?.pid).not.toBe(pid);

        // Live again: the next change arrives once, after the re-synced ones.
        await setValues(adminA, base, [{ id: id('Listen:K5'), rawValue: 'after', generation: 1 }]);
        const after = await lastChange(versionId);
        for (const sub of [...onL, onA]) await sub.until((s) => lastTimestampOf(s) >= after);

        const reference = liveOf(onA);
        expect(reference.map((e) => [e.key, e.value, e.generation])).toEqual([
          ['Listen:K0', 'during-1', 2],
          ['Listen:K1', 'during-2', 2],
          ['Listen:K2', 'during-3', 2],
          ['Listen:K3', null, 2],
          ['Listen:K10', 'during-4', 1],
          ['Listen:K4', 'during-5', 2],
          ['Listen:K5', 'after', 2],
        ]);
        for (const [i, sub] of onL.entries()) {
          expect(orderingOf(`L${i}`, sub)).toEqual([]);
          expect(liveOf(sub)).toEqual(reference);
        }
      } finally {
        await stop();
      }
    });

    it('a key changed several times while it is not listening reaches its subscribers change by change', async (ctx) => {
      if (!roleReady) return ctx.skip();
      const { grpcL, stop } = await startListener();
      try {
        const { versionId, base, entries } = await createVersion('listen-collapse', ['C:K0', 'C:K1']);
        const onL = await subscribe(grpcL, versionId);
        const onA = await subscribe(grpcA, versionId);
        const { restore } = await cutListener();

        const k0 = entries.get('C:K0')!.id;
        const k1 = entries.get('C:K1')!.id;
        await setValues(adminA, base, [{ id: k0, rawValue: 'first', generation: 1 }]);
        await setValues(adminA, base, [
          { id: k0, rawValue: 'second', generation: 2 },
          { id: k1, rawValue: 'k1', generation: 1 },
        ]);
        await setValues(adminA, base, [{ id: k0, rawValue: 'third', generation: 3 }]);
        const during = await lastChange(versionId);
        await onA.until((s) => lastTimestampOf(s) >= during);
        await restore();
        await onL.until((s) => lastTimestampOf(s) >= during, 20_000);

        // The re-sync replays the change log: every change, each batch whole, in commit order —
        // exactly what the instance that never lost its connection delivered.
        expect(orderingOf('L', onL)).toEqual([]);
        expect(liveOf(onL)).toEqual(liveOf(onA));
        expect(liveOf(onL).map((e) => [e.key, e.value, e.generation])).toEqual([
          ['C:K0', 'first', 2],
          ['C:K0', 'second', 3],
          ['C:K1', 'k1', 2],
          ['C:K0', 'third', 4],
        ]);
        // A replayed burst may share one message (docs/grpc.md, Events), but a batch is never split.
        const batchMessage = onL.events.find((m) => m.events.some((e) => e.value === 'k1'));
        const values = batchMessage?.events.map((e) => e.value) ?? [];
        expect(values.indexOf('k1') - values.indexOf('second')).toBe(1);
      } finally {
        await stop();
      }
    });

    // The re-sync replays the change log, so the deletion event itself is replayed.
    it('a version deleted while it is not listening ends its subscribers with the deletion events, then NOT_FOUND', async (ctx) => {
      if (!roleReady) return ctx.skip();
      const { grpcL, stop } = await startListener();
      try {
        const { versionId } = await createVersion('listen-doomed', ['D:K0', 'D:K1']);
        const onL = await subscribe(grpcL, versionId);
        const onA = await subscribe(grpcA, versionId);
        const { restore } = await cutListener();
        expect((await adminA.delete(`/api/configversions/${serviceId}/${versionId}`)).status).toBe(204);
        await onA.until((s) => s.status !== undefined);
        await restore();
        await onL.until((s) => s.status !== undefined, 20_000);

        expect(onA.status?.code).toBe(grpc.status.NOT_FOUND);
        expect(onL.status?.code).toBe(grpc.status.NOT_FOUND);
        const deletion = [
          ['D:K0', null, 2],
          ['D:K1', null, 2],
        ];
        expect(liveOf(onA).map((e) => [e.key, e.value, e.generation])).toEqual(deletion);
        expect(liveOf(onL).map((e) => [e.key, e.value, e.generation])).toEqual(deletion);
      } finally {
        await stop();
      }
    });

    // The re-sync replays `version-updated` too, so L's label cache forgets the old label.
    it('a version renamed while it is not listening is no longer found under its old label', async (ctx) => {
      if (!roleReady) return ctx.skip();
      const { grpcL, stop } = await startListener();
      try {
        const { versionId } = await createVersion('listen-old-label', ['R:K0']);
        expect((await grpcL.getConfig({ serviceId, version: 'listen-old-label' })).entries).toHaveLength(1);
        const onL = await subscribe(grpcL, versionId);
        const { restore } = await cutListener();
        const renamed = await adminA.put(`/api/configversions/${serviceId}/${versionId}`, {
          versionLabel: 'listen-new-label',
          description: null,
        });
        expect(renamed.status, renamed.text).toBe(200);
        await restore();
        // The version lives on: a change made after the rename shows L has re-synced.
        const base = `/api/configentries/${serviceId}/${versionId}`;
        const [entry] = await entriesOf(adminA, base);
        await setValues(adminA, base, [{ id: entry!.id, rawValue: 'after-rename', generation: 1 }]);
        await onL.until((s) => s.configEvents.some((e) => e.value === 'after-rename'), 20_000);
        // Another version takes the old label.
        await createVersion('listen-old-label', ['N:K0']);

        const byLabel = async (client: GrpcTestClient, label: string) =>
          (await client.getConfig({ serviceId, version: label })).entries.map((e) => [e.key, e.value ?? null]);
        expect(await byLabel(grpcA, 'listen-old-label')).toEqual([['N:K0', 'initial-N:K0']]);
        expect(await byLabel(grpcL, 'listen-new-label')).toEqual([['R:K0', 'after-rename']]);
        expect(await byLabel(grpcL, 'listen-old-label')).toEqual([['N:K0', 'initial-N:K0']]);
      } finally {
        await stop();
      }
    });
  });
});
