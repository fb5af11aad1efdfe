import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantEntries } from '@realtime-config/test-support/planted-entries';
import { connect, watchVersion, type WatchedChange } from './index.js';
import {
  databaseKinds,
  entriesByKey,
  recordingLogger,
  startFixture,
  until,
  versionIdOf,
  type Fixture,
} from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

/** Keys stored before the server reserved their segments: the SDK receives them as any other. */
const PLANTED = [
  { key: '__proto__:polluted', valueType: 1, rawValue: 'yes' },
  { key: 'constructor:prototype:isAdmin', valueType: 2, rawValue: 'true' },
  { key: 'Payments:__proto__', valueType: 8, rawValue: '{"polluted":true}' },
  { key: 'Payments:constructor', valueType: 1, rawValue: 'x' },
];

const prototypeMembers = () => Object.getOwnPropertyNames(Object.prototype).sort();
const untouched = () => {
  const probe = {} as Record<string, unknown>;
  return { polluted: probe.polluted, isAdmin: probe.isAdmin, members: prototypeMembers() };
};

describe.each(databaseKinds)('server-sent keys with a prototype name on %s', (kind) => {
  let fx: Fixture;
  let serviceId: string;
  const before = untouched();

  beforeAll(async () => {
    fx = await startFixture(kind);
    serviceId = await fx.service();
  });
  afterAll(() => fx?.close());

  it('reach connect(), watchVersion() and the cache file as data, and leave Object.prototype alone', async () => {
    const cacheFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-sdk-keys-')), 'cache.json');
    const config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, cacheFile });
    const versionId = config.versionId;
    await plantEntries(fx.server.internals.database.db, versionId, PLANTED);
    const watched: WatchedChange[] = [];
    const stop = new AbortController();
    const watching = (async () => {
      for await (const changes of watchVersion({ url: fx.url, serviceId, versionId, signal: stop.signal })) {
        watched.push(...changes);
      }
    })();
    try {
      expect(versionId).toBe(await versionIdOf(fx.admin, serviceId, '1.0.0'));
      // The backfill carries the planted keys to the raw watcher.
      await until(() => PLANTED.every((p) => watched.some((c) => c.key === p.key)), 'the planted keys');

      // A live change of such a key, in one event with a declared one.
      const entries = await entriesByKey(fx.admin, serviceId, versionId);
      const change = (key: string, rawValue: string) => ({
        id: entries[key]!.id,
        rawValue,
        generation: entries[key]!.generation,
      });
      const res = await fx.admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        change('__proto__:polluted', 'again'),
        change('Payments:__proto__', '{"isAdmin":true}'),
        change('Payments:Provider', 'Adyen'),
      ]);
      expect(res.status, res.text).toBe(200);
      await until(() => config.values.Payments.Provider === 'Adyen', 'the live change');
      await until(() => watched.some((c) => c.key === '__proto__:polluted' && c.value === 'again'), 'the raw change');

      expect(watched.find((c) => c.key === 'Payments:__proto__' && c.value === '{"isAdmin":true}')).toBeDefined();
      expect(Object.keys(config.values.Payments)).not.toContain('__proto__');
      expect(Object.getPrototypeOf(config.values.Payments)).toBe(Object.prototype);
      expect(config.values.Payments.Limits).toEqual({ max: 1 });
      expect(untouched()).toEqual(before);

      // A client starting now gets them in its GetConfig snapshot (the server's snapshot heard the change).
      const another = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema });
      expect(another.values.Payments.Provider).toBe('Adyen');
      await another.close();
      expect(untouched()).toEqual(before);

      await config.close();
      // The cache holds the declared keys only, and a client started from it reads them.
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Array<{ key: string }> };
      expect(cached.entries.map((e) => e.key)).not.toContain('__proto__:polluted');
      const fromCache = await connect({
        url: 'http://127.0.0.1:9',
        serviceId,
        version: '1.0.0',
        schema: paymentsSchema,
        cacheFile,
        startupTimeout: 300,
        pollingInterval: 60_000,
        logger: recordingLogger(),
      });
      expect(fromCache.values.Payments.Provider).toBe('Adyen');
      await fromCache.close();
      expect(untouched()).toEqual(before);
    } finally {
      stop.abort();
      await watching;
      await config.close();
    }
  });
});
