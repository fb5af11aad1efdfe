import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '@realtime-config/test-support/server-process';
import { connect, type ConfigChange, type ConfigStatus } from './index.js';
import {
  databaseKinds,
  recordingLogger,
  setValues,
  until,
  versionIdOf,
  type ApiClient,
} from './test-support/fixtures.js';
import { paymentsSchema, type PaymentsSchema } from './test-support/payments-schema.js';
import { serverProcesses, type ServerProcesses } from './test-support/server-processes.js';

/**
 * After three failed reconnect attempts in a row the wait grows (full jitter, up to
 * min(30 s, interval × 2^attempt)). The server is away here for about as long as a start takes, so
 * the catch-up usually comes within seconds; the bound allows for a slow machine.
 */
const CATCH_UP_MS = 45_000;

const POLLING_INTERVAL_MS = 200;

describe.each(databaseKinds)('restarts of the server on %s', (kind) => {
  let processes: ServerProcesses;
  /** Another instance on the same database, up all along: it makes the changes while the clients' server is down. */
  let other: ApiClient;
  /** The instance on the clients' port: each test's restart leaves one serving for the next. */
  let serving: ServerProcess | undefined;
  const onClientsPort = async (): Promise<ServerProcess> =>
    serving && serving.child.exitCode === null && serving.child.signalCode === null
      ? serving
      : (serving = await processes.start());
  beforeAll(async () => {
    processes = await serverProcesses(kind);
    other = await (await processes.startInProcess()).admin();
  });
  afterAll(async () => {
    await processes?.cleanup();
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'after %s every change made while the client was away arrives once, in order',
    async (signal) => {
      const first = await onClientsPort();
      const admin = await processes.admin(first);
      const serviceId = (await admin.post('/api/services', { name: `restart-${signal}` })).body.id as string;
      const logger = recordingLogger();
      const config = await connect({
        url: processes.url,
        serviceId,
        version: '1.0.0',
        schema: paymentsSchema,
        pollingInterval: POLLING_INTERVAL_MS,
        logger,
      });
      const seen: Array<ConfigChange<PaymentsSchema>> = [];
      const calls: number[] = [];
      const statuses: ConfigStatus[] = [];
      config.subscribe((_, changes) => {
        seen.push(...changes);
        calls.push(changes.length);
      });
      config.on('status', (s) => statuses.push(s));
      try {
        const versionId = (await versionIdOf(admin, serviceId, '1.0.0')) as string;
        await setValues(admin, serviceId, versionId, { 'Payments:Provider': 'before' });
        await until(() => config.values.Payments.Provider === 'before', 'the change before the restart');

        if (signal === 'SIGTERM') await processes.stop(first);
        else await first.kill();
        await until(() => config.status === 'reconnecting', 'status reconnecting');

        // Changes while the client's server is down, through the other instance on the same database.
        await setValues(other, serviceId, versionId, { 'Payments:Mode': 'Live' });
        await setValues(other, serviceId, versionId, { 'Payments:Enabled': 'false', 'Payments:Retries': '[9]' });
        await setValues(other, serviceId, versionId, { 'Payments:TimeoutSeconds': '60' });
        expect(config.status).toBe('reconnecting');
        expect(seen).toHaveLength(1);

        const back = await onClientsPort();
        const attemptsBefore = logger.messages.debug.length;
        await until(() => config.values.Payments.TimeoutSeconds === 60, 'the catch-up', CATCH_UP_MS);
        // The first attempt that starts after the server listens succeeds: no back-off of a
        // library keeps failing calls to a server that is back.
        expect(logger.messages.debug.length).toBeLessThanOrEqual(attemptsBefore + 1);

        await setValues(await processes.admin(back), serviceId, versionId, { 'Payments:Provider': 'after' });
        await until(() => config.values.Payments.Provider === 'after', 'the change after the restart');

        expect(seen.map((c) => [c.key, c.newValue])).toEqual([
          ['Payments:Provider', 'before'],
          ['Payments:Mode', 'Live'],
          ['Payments:Enabled', false],
          ['Payments:Retries', [9]],
          ['Payments:TimeoutSeconds', 60],
          ['Payments:Provider', 'after'],
        ]);
        expect(calls[0]).toBe(1);
        expect(calls.at(-1)).toBe(1);
        expect(statuses).toEqual(['reconnecting', 'live']);
        expect(logger.messages.warn.some((m) => m.includes('UNAVAILABLE') || m.includes('Unavailable'))).toBe(true);
      } finally {
        await config.close();
      }
    },
    120_000,
  );
});
