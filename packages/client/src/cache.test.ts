import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@realtime-config/test-support/server-process';
import { connect, type ConfigStatus } from './index.js';
import {
  databaseKinds,
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
 * min(30 s, interval × 2^attempt)): the server is away here for about as long as a start takes,
 * so the catch-up usually comes within seconds; the bound allows for a slow machine.
 */
const CATCH_UP_MS = 45_000;

const folders: string[] = [];
function cacheFileIn(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-cache-'));
  folders.push(dir);
  return path.join(dir, 'config-cache.json');
}
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe.each(databaseKinds)('the cache file on %s', (kind) => {
  let processes: ServerProcesses | undefined;
  afterEach(async () => {
    await processes?.cleanup();
  });

  it('starts offline from the cache while the server is down, then catches up from the cached timestamp', async () => {
    processes = await serverProcesses(kind);
    const cacheFile = cacheFileIn();
    const server = await processes.start();
    const admin = await processes.admin(server);
    const serviceId = (await admin.post('/api/services', { name: 'cached' })).body.id as string;
    const options = { url: processes.url, serviceId, version: '1.0.0', schema: paymentsSchema, cacheFile };

    const first = await connect(options);
    const versionId = first.versionId;
    await setValues(admin, serviceId, versionId, { 'Payments:Provider': 'cached', 'Payments:Retries': '[5]' });
    await until(() => first.values.Payments.Provider === 'cached', 'the change');
    await first.close();
    const saved = JSON.parse(readFileSync(cacheFile, 'utf8'));
    expect(saved).toMatchObject({ serviceId, version: '1.0.0', versionId });
    expect(saved.entries).toContainEqual({ key: 'Payments:Provider', value: 'cached', timestamp: expect.any(Number) });

    // A change while the server is down, through another instance on the same database (in this
    // process: it starts in a fraction of a child's time).
    const elsewhere = await processes.startInProcess();
    await processes.stop(server);
    await setValues(await elsewhere.admin(), serviceId, versionId, { 'Payments:TimeoutSeconds': '99' });
    await elsewhere.close();

    const logger = recordingLogger();
    const config = await connect({ ...options, startupTimeout: 300, pollingInterval: 100, logger });
    const statuses: ConfigStatus[] = [];
    config.on('status', (s) => statuses.push(s));
    try {
      expect(config.status).toBe('offline');
      expect(config.versionId).toBe(versionId);
      expect(config.values.Payments).toMatchObject({ Provider: 'cached', Retries: [5], TimeoutSeconds: 30 });
      expect(logger.messages.warn[0]).toMatch(/starting offline from .*config-cache\.json.*ECONNREFUSED/);

      await processes.start();
      await until(() => config.values.Payments.TimeoutSeconds === 99, 'the catch-up', CATCH_UP_MS);
      await until(() => config.status === 'live', 'status live');
      expect(statuses).toEqual(['live']);
      expect(config.values.Payments.Provider).toBe('cached');
      await until(
        () => JSON.parse(readFileSync(cacheFile, 'utf8')).entries.some((e: { value: string }) => e.value === '99'),
        'the cache file to hold the caught-up value',
      );
    } finally {
      await config.close();
    }
  }, 120_000);
});

describe('starting without a server', () => {
  it('rejects within startupTimeout when there is no cache, saying what was tried', async () => {
    const url = `http://127.0.0.1:${await findFreePort()}`;
    const options = {
      url,
      serviceId: '6f1c2a9e-3b1d-4c55-9a43-2f1e0c9b8d7a',
      version: '1.0.0',
      schema: paymentsSchema,
      startupTimeout: 300,
      pollingInterval: 100,
      logger: recordingLogger(),
    };
    const noCache = connect(options);
    await expect(noCache).rejects.toMatchObject({ name: 'ConfigError', code: 'UNAVAILABLE' });
    const message = (await noCache.catch((e: Error) => e.message)) as string;
    expect(message).toContain(`from ${url}: no answer within 300 ms, and no cacheFile is set. Tried:`);
    expect(message).toMatch(/1\. IsVersionExists at .*ECONNREFUSED/);

    const cacheFile = cacheFileIn();
    await expect(connect({ ...options, cacheFile })).rejects.toThrow(`${cacheFile} does not exist yet`);
  });
});

describe('the startup timeout', () => {
  it('fires even when garbage collection runs while connect waits', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const attempt = connect({
      url: `http://127.0.0.1:${await findFreePort()}`,
      serviceId: '6f1c2a9e-3b1d-4c55-9a43-2f1e0c9b8d7a',
      version: '1.0.0',
      schema: paymentsSchema,
      startupTimeout: 1000,
      pollingInterval: 50,
      logger: recordingLogger(),
    });
    let settled = false;
    const outcome = attempt.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    void outcome.then(() => (settled = true));
    while (!settled) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await outcome).toContain('no answer within 1000 ms');
  });
});

describe('writing the cache file', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture('sqlite');
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('replaces it atomically: every read sees a whole file, no temporary file is left', async () => {
    const serviceId = await fx.service();
    const cacheFile = cacheFileIn();
    const config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, cacheFile });
    const versionId = (await versionIdOf(fx.admin, serviceId, '1.0.0')) as string;
    const big = JSON.stringify({ max: 1, padding: 'x'.repeat(200_000) });
    let reads = 0;
    let writing = true;
    const torn: unknown[] = [];
    const reader = (async () => {
      while (writing) {
        try {
          JSON.parse(readFileSync(cacheFile, 'utf8')); // connect resolved after the first write
          reads++;
        } catch (error) {
          torn.push(error);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      for (let i = 1; i <= 20; i++) {
        await setValues(fx.admin, serviceId, versionId, {
          'Payments:TimeoutSeconds': String(i),
          'Payments:Limits': big,
        });
      }
      await until(() => config.values.Payments.TimeoutSeconds === 20, 'the last change');
    } finally {
      await config.close();
      writing = false;
      await reader;
    }
    expect(torn).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(path.dirname(cacheFile))).toEqual(['config-cache.json']);
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).entries).toContainEqual(
      expect.objectContaining({ key: 'Payments:TimeoutSeconds', value: '20' }),
    );
  });
});
