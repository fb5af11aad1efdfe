import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, connect, watchVersion, type WatchedChange, type WatchStatus } from './index.js';
import {
  databaseKinds,
  entriesByKey,
  openSubscriptions,
  recordingLogger,
  setValues,
  startFixture,
  until,
  versionIdOf,
  type Fixture,
} from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';
import { serverProcesses, type ServerProcesses } from './test-support/server-processes.js';

/**
 * After three failed reconnect attempts in a row the wait grows (full jitter, up to
 * min(30 s, interval × 2^attempt)). The server is away here for about as long as a start takes, so
 * the catch-up usually comes within seconds; the bound allows for a slow machine.
 */
const CATCH_UP_MS = 45_000;

/** Runs a watch in the background, keeping every batch, status and the way it ended. */
function record(iterable: AsyncIterable<WatchedChange[]>) {
  const batches: WatchedChange[][] = [];
  let ended: { error?: unknown } | undefined;
  const done = (async () => {
    try {
      for await (const batch of iterable) batches.push(batch);
      ended = {};
    } catch (error) {
      ended = { error };
    }
  })();
  return {
    batches,
    done,
    get ended() {
      return ended;
    },
    keys: () => batches.flat().map((c) => `${c.key}=${c.value ?? 'null'}`),
  };
}

describe.each(databaseKinds)('watchVersion across server restarts on %s', (kind) => {
  let processes: ServerProcesses | undefined;
  afterEach(async () => {
    await processes?.cleanup();
  });

  it('gives the current values, then every change once and in order, across a SIGKILL', async () => {
    processes = await serverProcesses(kind);
    const first = await processes.start();
    const admin = await processes.admin(first);
    const serviceId = (await admin.post('/api/services', { name: 'watched' })).body.id as string;
    const app = await connect({ url: processes.url, serviceId, version: '1.0.0', schema: paymentsSchema });
    await app.close();
    const versionId = (await versionIdOf(admin, serviceId, '1.0.0')) as string;
    const stop = new AbortController();
    const statuses: WatchStatus[] = [];
    const logger = recordingLogger();
    const watch = record(
      watchVersion({
        url: processes.url,
        serviceId,
        versionId,
        pollingInterval: 200,
        signal: stop.signal,
        logger,
        onStatus: (status) => statuses.push(status),
      }),
    );
    const stored = Object.keys(await entriesByKey(admin, serviceId, versionId)).sort();
    await until(() => watch.keys().length === stored.length, 'the current values');
    const initial = watch.batches.flat();
    expect(initial.map((c) => c.key).sort()).toEqual(stored);
    expect(initial.find((c) => c.key === 'Payments:TimeoutSeconds')).toMatchObject({
      value: '30',
      valueType: 'Number',
      generation: 1,
    });
    const has = (change: string) => () => watch.keys().includes(change);

    await setValues(admin, serviceId, versionId, { 'Payments:Provider': 'before' });
    await until(has('Payments:Provider=before'), 'the change before the restart');
    // Another instance on the same database, up before the kill: the changes are made while the
    // watch's server is down, which is then away only for as long as its restart takes.
    const other = await (await processes.startInProcess()).admin();
    await first.kill();
    await until(() => statuses.includes('reconnecting'), 'status reconnecting');

    await setValues(other, serviceId, versionId, { 'Payments:Mode': 'Live' });
    await setValues(other, serviceId, versionId, { 'Payments:Enabled': 'false', 'Payments:Retries': '[9]' });

    const back = await processes.start();
    await until(has('Payments:Retries=[9]'), 'the catch-up', CATCH_UP_MS);
    const backAdmin = await processes.admin(back);
    await setValues(backAdmin, serviceId, versionId, { 'Payments:Provider': 'after' });
    await until(has('Payments:Provider=after'), 'the change after the restart');

    const changes = watch.batches.slice(watch.batches.findIndex((b) => b.some((c) => c.value === 'before')));
    // The changes missed while away may come as one batch; live changes come one event each.
    expect(changes.flat().map((c) => `${c.key}=${c.value ?? 'null'}`)).toEqual([
      'Payments:Provider=before',
      'Payments:Mode=Live',
      'Payments:Enabled=false',
      'Payments:Retries=[9]',
      'Payments:Provider=after',
    ]);
    expect(changes[0]).toHaveLength(1);
    expect(changes.at(-1)).toHaveLength(1);
    const times = changes.flatMap((b) => b.map((c) => c.timestampMicros));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBeGreaterThanOrEqual(4);
    expect(statuses).toEqual(['live', 'reconnecting', 'live']);
    expect(logger.messages.warn.length).toBeGreaterThanOrEqual(1);

    stop.abort();
    await watch.done;
    expect(watch.ended).toEqual({}); // an abort ends the iteration without an error
    await until(async () => (await openSubscriptions(backAdmin)) === 0, 'no stream left on the server');
  }, 120_000);
});

describe('watchVersion with Grpc:RequireAuthentication=true', () => {
  let fx: Fixture;
  let serviceId: string;
  let versionId: string;
  let apiKey: string;

  beforeAll(async () => {
    fx = await startFixture('sqlite', ['--Grpc:RequireAuthentication=true']);
    serviceId = await fx.service();
    apiKey = (await fx.admin.post(`/api/services/${serviceId}/apikeys`, { name: 'watch' })).body.key as string;
    const app = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, apiKey });
    versionId = app.versionId;
    await app.close();
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('refuses bad options at once, naming the option', () => {
    expect(() => watchVersion({ url: fx.url, serviceId, versionId: '1.0.0' })).toThrow(/options\.versionId/);
    expect(() => watchVersion({ url: 'ftp://x', serviceId, versionId })).toThrow(/^watchVersion\(\): options\.url/);
    expect(() => watchVersion({ url: fx.url, serviceId, versionId, headers: { 'bad name': 'x' } })).toThrow(
      ConfigError,
    );
    expect(() => watchVersion({ url: fx.url, serviceId, versionId, since: new Date('nope') })).toThrow(/since/);
  });

  it('ends with the refusal, not a retry loop, when the credentials or the version are wrong', async () => {
    const missing = record(watchVersion({ url: fx.url, serviceId, versionId, logger: recordingLogger() }));
    await missing.done;
    expect(missing.ended?.error).toMatchObject({ code: 'UNAUTHENTICATED' });

    const otherVersion = '00000000-0000-4000-8000-000000000000';
    const unknown = record(watchVersion({ url: fx.url, serviceId, versionId: otherVersion, apiKey }));
    await unknown.done;
    expect(unknown.ended?.error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('asks a token function again when the server refuses its token, and ends the stream on break', async () => {
    const tokens = ['rck_expired-key', apiKey];
    let asked = 0;
    const since = new Date();
    let seen: WatchedChange | undefined;
    const watching = (async () => {
      for await (const batch of watchVersion({
        url: fx.url,
        serviceId,
        versionId,
        since,
        token: () => tokens[asked++] ?? apiKey,
      })) {
        seen = batch[0];
        break;
      }
    })();
    await until(async () => (await openSubscriptions(fx.admin)) === 1, 'the stream open');
    await setValues(fx.admin, serviceId, versionId, { 'Payments:Mode': 'Live' });
    await watching;
    expect(asked).toBe(2);
    expect(seen).toMatchObject({ key: 'Payments:Mode', value: 'Live', valueType: 'Enum' });
    expect(seen?.timestamp.getTime()).toBeGreaterThanOrEqual(since.getTime());
    await until(async () => (await openSubscriptions(fx.admin)) === 0, 'the stream ended on the server');
  });
});
