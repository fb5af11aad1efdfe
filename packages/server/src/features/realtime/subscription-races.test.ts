import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService, timestampFromMicros } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangeHub, type ChangeNotice, type Stores, type UnitOfWork } from '../../core/index.js';
import { ITEMS_PER_TURN as STREAMS_PER_TURN } from '../../platform/turns.js';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { ConfigCalls } from './config-calls.js';
import { configRpcRoutes } from './config-rpc.js';
import type { EventBatch } from './event-batch.js';
import { createGrpcAuthorizer } from './grpc-authorizer.js';
import { Subscriptions, type Subscription, type SubscriberSink } from './subscriptions.js';
import { VersionSnapshots } from './version-snapshots.js';
import { until } from '@realtime-config/test-support/until';

/**
 * The real storage and change hub of a running server, with one read held at a point the test
 * chooses: the interleavings below are otherwise a matter of luck.
 */
function withReadHook(uow: UnitOfWork, hook: Partial<{ [K in keyof Stores]: Partial<Stores[K]> }>): UnitOfWork {
  const read = { ...uow.read } as Record<string, unknown>;
  for (const [store, methods] of Object.entries(hook)) read[store] = { ...(uow.read as any)[store], ...methods };
  return { ...uow, read: read as unknown as Stores };
}

class RecordingSink implements SubscriberSink {
  readonly batches: EventBatch[] = [];
  ended: { code: string; message: string } | undefined;
  deliver(batch: EventBatch): boolean {
    this.batches.push(batch);
    return true;
  }
  end(code: 'NOT_FOUND' | 'UNAVAILABLE', message: string): void {
    this.ended = { code, message };
  }
}

describe('stream races', () => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  afterAll(() => server?.close());

  /**
   * A version with entry A, and `commit` to change A on the server and hand back the notices
   * committed: a test driving Subscriptions on a hub of its own publishes them when it chooses.
   */
  async function version(name: string) {
    const serviceId = (await admin.post('/api/services', { name })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'A',
      valueType: 1,
      rawValue: 'a',
    });
    await server.flushChanges();
    let generation = created.body.generation as number;
    const commit = async (count: number): Promise<ChangeNotice[]> => {
      const notices: ChangeNotice[] = [];
      const stop = server.internals.hub.subscribe(versionId, (notice) => notices.push(notice));
      for (let n = 1; n <= count; n++) {
        const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: created.body.id, rawValue: `a${n}`, generation },
        ]);
        generation = set.body[0].generation as number;
      }
      await server.flushChanges();
      stop();
      expect(notices).toHaveLength(count);
      return notices;
    };
    return { serviceId, versionId, after: server.internals.hub.lastTimestamp(versionId) ?? 0, commit };
  }

  it('ends a subscription with NOT_FOUND when its version is deleted between the existence check and going live', async () => {
    const { serviceId, versionId } = await version('deleted-while-opening');
    const { uow, hub } = server.internals;
    const subscriptions = new Subscriptions(
      withReadHook(uow, {
        versions: {
          // The version is found; before the answer returns, it is deleted and the deletion published.
          get: async (sid, vid) => {
            const found = await uow.read.versions.get(sid, vid);
            expect((await admin.delete(`/api/configversions/${serviceId}/${versionId}`)).status).toBe(204);
            await server.flushChanges();
            return found;
          },
        },
      }),
      hub,
    );
    const sink = new RecordingSink();
    await subscriptions.open({ serviceId, versionId, afterTimestamp: 0 }, sink).catch(() => undefined);
    expect(sink.ended?.code).toBe('NOT_FOUND');
    expect(subscriptions.count).toBe(0);
  });

  it('frees the subscription of a Connect client that went away while its backfill was read', async () => {
    const { serviceId, versionId } = await version('gone-during-backfill');
    const { uow, hub } = server.internals;
    let backfillEntered!: () => void;
    const entered = new Promise<void>((resolve) => (backfillEntered = resolve));
    let releaseBackfill!: () => void;
    const released = new Promise<void>((resolve) => (releaseBackfill = resolve));
    const subscriptions = new Subscriptions(
      withReadHook(uow, {
        entries: {
          changedSince: async (vid, after) => {
            backfillEntered();
            await released;
            return uow.read.entries.changedSince(vid, after);
          },
        },
      }),
      hub,
    );
    const calls = new ConfigCalls({
      uow,
      snapshots: new VersionSnapshots(uow, hub),
      registration: undefined as never,
      authorizer: createGrpcAuthorizer({
        required: false,
        bearer: { resolve: () => Promise.resolve({ refused: 'no credentials in this test' }) },
      }),
      isStarted: () => true,
    });
    const adapter = connectNodeAdapter({
      routes: configRpcRoutes({ calls, subscriptions, logger: console, maxBufferedBytes: 1 << 20 }),
    });
    let requestClosed = false;
    const http: Server = createServer((req, res) => {
      req.socket.once('close', () => (requestClosed = true));
      adapter(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const client = createClient(
        RealtimeConfigGrpcService,
        createConnectTransport({ httpVersion: '1.1', baseUrl: `http://127.0.0.1:${port}` }),
      );
      // Nothing to send (no change after the timestamp): only the abort can end this stream.
      const timestamp = timestampFromMicros(Date.now() * 1000 + 3_600_000_000);
      const stream = new ConnectStream((signal) =>
        client.startSubscribe({ serviceId, versionId, timestamp }, { signal }),
      );
      await entered;
      expect(subscriptions.count).toBe(1);
      await stream.cancel();
      await until(() => requestClosed, 'the server to see the client go');
      await new Promise((resolve) => setImmediate(resolve));
      releaseBackfill();
      await until(() => subscriptions.count === 0, 'the subscription to be freed');
    } finally {
      releaseBackfill();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('lets streams that open together share one read, each sent exactly what changed after its own timestamp', async () => {
    const { serviceId, versionId } = await version('opening-together');
    for (const key of ['B', 'C'])
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType: 1,
        rawValue: key.toLowerCase(),
      });
    const { uow, hub } = server.internals;
    const stamps = (await uow.read.entries.changedSince(versionId, 0)).map((e) => e.changedAt);
    const reads = { versions: 0, entries: 0 };
    const subscriptions = new Subscriptions(
      withReadHook(uow, {
        versions: { get: (sid, vid) => (reads.versions++, uow.read.versions.get(sid, vid)) },
        entries: { changedSince: (vid, after) => (reads.entries++, uow.read.entries.changedSince(vid, after)) },
      }),
      hub,
    );
    const afters = [0, ...stamps];
    const sinks = Array.from({ length: 40 }, () => new RecordingSink());
    const opened = await Promise.all(
      sinks.map((sink, i) =>
        subscriptions.open({ serviceId, versionId, afterTimestamp: afters[i % afters.length] ?? 0 }, sink),
      ),
    );
    expect(reads).toEqual({ versions: 1, entries: 1 });
    sinks.forEach((sink, i) => {
      const expected = ['A', 'B', 'C'].slice(i % afters.length);
      expect(sink.batches.flatMap((b) => b.entries.map((e) => e.key))).toEqual(expected);
    });
    // Streams asking for the same timestamp share one batch, so one encoding.
    expect(sinks[0]?.batches[0]).toBe(sinks[4]?.batches[0]);
    for (const subscription of opened) subscription.close();
    expect(subscriptions.count).toBe(0);
  });

  it('never lets a stream join a read that began before it asked: a change committed meanwhile reaches it once', async () => {
    const { serviceId, versionId } = await version('asked-during-a-read');
    const { uow, hub } = server.internals;
    let firstEntered!: () => void;
    const entered = new Promise<void>((resolve) => (firstEntered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const subscriptions = new Subscriptions(
      withReadHook(uow, {
        entries: {
          changedSince: async (vid, after) => {
            const records = await uow.read.entries.changedSince(vid, after);
            if (++reads === 1) {
              firstEntered();
              await released; // the first read has its answer, from before the change below
            }
            return records;
          },
        },
      }),
      hub,
    );
    const [created] = await uow.read.entries.changedSince(versionId, 0);
    const now = created?.changedAt ?? 0;
    const early = new RecordingSink();
    const earlyOpen = subscriptions.open({ serviceId, versionId, afterTimestamp: now }, early);
    await entered;
    const [entry] = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
      id: string;
      generation: number;
    }>;
    const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: entry?.id, rawValue: 'changed', generation: entry?.generation },
    ]);
    expect(set.status).toBe(200);
    await server.flushChanges();
    const late = new RecordingSink();
    const lateOpen = subscriptions.open({ serviceId, versionId, afterTimestamp: now }, late);
    release();
    await Promise.all([earlyOpen, lateOpen]);
    expect(reads).toBe(2);
    for (const sink of [early, late]) {
      expect(sink.batches.flatMap((b) => b.entries.map((e) => `${e.key}=${e.value}`))).toEqual(['A=changed']);
    }
  });

  // A burst goes to a version's streams a slice per turn of the event loop (platform/turns.ts).
  it('writes a burst a slice per turn, lets other work run between slices, and keeps every stream in order', async () => {
    const { serviceId, versionId, after, commit } = await version('slices');
    const hub = createChangeHub();
    const subscriptions = new Subscriptions(server.internals.uow, hub);

    // Turns of the event loop, counted by a callback that reschedules itself each turn.
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };

    const streams = 3 * STREAMS_PER_TURN + 7;
    const last: { subscription?: Subscription } = {};
    const received: Array<Array<{ timestamp: number; turn: number }>> = Array.from({ length: streams }, () => []);
    const sinks: SubscriberSink[] = received.map((list, i) => ({
      deliver(batch: EventBatch) {
        list.push({ timestamp: batch.lastTimestamp, turn });
        if (i === 10 && list.length === 1) {
          hub.publish(second); // the next change commits while the first is still being written
          last.subscription?.close(); // and the last stream goes away before its turn
        }
        return true;
      },
      end: () => undefined,
    }));
    const opened = [];
    for (const sink of sinks)
      opened.push(await subscriptions.open({ serviceId, versionId, afterTimestamp: after }, sink));
    last.subscription = opened.at(-1);
    const [first, second] = (await commit(2)) as [ChangeNotice, ChangeNotice];

    count();
    hub.publish(first);
    await until(() => received.slice(0, -1).every((list) => list.length === 2), 'both changes at every stream');
    counting = false;

    // In order, once each, at every stream still open; nothing to the one that left.
    for (const list of received.slice(0, -1)) {
      expect(list.map((r) => r.timestamp)).toEqual([first.timestamp, second.timestamp]);
    }
    expect(received.at(-1)).toEqual([]);
    // The first burst took one turn per slice, and other callbacks ran between them.
    const turns = new Set(received.slice(0, -1).map((list) => list[0]?.turn));
    expect(turns.size).toBe(Math.ceil((streams - 1) / STREAMS_PER_TURN));
    // The second went out only after the first had reached the last stream.
    const lastOfFirst = Math.max(...received.slice(0, -1).map((list) => list[0]?.turn ?? 0));
    const firstOfSecond = Math.min(...received.slice(0, -1).map((list) => list[1]?.turn ?? Infinity));
    expect(firstOfSecond).toBeGreaterThan(lastOfFirst);

    for (const subscription of opened) subscription.close();
    expect(subscriptions.count).toBe(0);
  });

  it('ends the streams with NOT_FOUND when the version is deleted during a burst, after every stream had it', async () => {
    const { serviceId, versionId, after, commit } = await version('slices-deleted');
    const committed: ChangeNotice[] = [];
    const deleted = (): ChangeNotice => ({
      ...(committed[0] as ChangeNotice),
      kind: 'version-deleted',
      timestamp: (committed[0] as ChangeNotice).timestamp + 1,
      entries: [],
    });
    const hub = createChangeHub();
    const subscriptions = new Subscriptions(server.internals.uow, hub);
    const streams = 2 * STREAMS_PER_TURN + 1;
    const events: string[][] = Array.from({ length: streams }, () => []);
    for (let i = 0; i < streams; i++) {
      await subscriptions.open(
        { serviceId, versionId, afterTimestamp: after },
        {
          deliver: () => {
            events[i]?.push('change');
            if (i === 5) hub.publish(deleted());
            return true;
          },
          end: (code) => void events[i]?.push(code),
        },
      );
    }
    committed.push(...(await commit(1)));
    hub.publish(committed[0] as ChangeNotice);
    await until(() => events.every((list) => list.length === 2), 'every stream ended');
    for (const list of events) expect(list).toEqual(['change', 'NOT_FOUND']);
    expect(subscriptions.count).toBe(0);
  });
});
