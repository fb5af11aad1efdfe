import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangeHub, type ChangeNotice } from '../../core/index.js';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import type { EventBatch } from './event-batch.js';
import { ITEMS_PER_TURN as STREAMS_PER_TURN } from '../../platform/turns.js';
import { Subscriptions, type Subscription, type SubscriberSink } from './subscriptions.js';
import { until } from '@realtime-config/test-support/until';

/**
 * A burst of changes goes to the streams of a version a slice per turn of the event loop (Node's
 * HTTP/2 sends a turn's writes once the turn ends). These drive the real Subscriptions on a hub of
 * their own, with notices the running server committed, so the moment a change arrives is chosen.
 */
describe('fan-out in slices', () => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  afterAll(() => server?.close());

  /**
   * A version with entry A, and a way to commit changes to A on the server without them reaching
   * the Subscriptions under test: those get the committed notices when the test publishes them.
   */
  async function version(name: string) {
    const serviceId = (await admin.post('/api/services', { name })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'A',
      valueType: 1,
      rawValue: 'a0',
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
