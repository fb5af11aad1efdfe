import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type ConfigStatus, type LiveConfig } from './index.js';
import { findFreePort } from '@realtime-config/test-support/server-process';
import { openSubscriptions, setValues, startFixture, until, type Fixture } from './test-support/fixtures.js';
import { paymentsSchema, type PaymentsSchema } from './test-support/payments-schema.js';

describe('closing a client ends its stream on the server', () => {
  let fx: Fixture;
  let serviceId: string;
  let watcher: LiveConfig<PaymentsSchema>;
  const start = (options: { signal?: AbortSignal } = {}) =>
    connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, ...options });
  /** Changes a value and waits until a client that stays open has it, so the others had their chance too. */
  const change = async (timeout: number) => {
    await setValues(fx.admin, serviceId, watcher.versionId, { 'Payments:TimeoutSeconds': String(timeout) });
    await until(() => watcher.values.Payments.TimeoutSeconds === timeout, `timeout ${timeout} at the watcher`);
  };
  const streamsOpen = async (n: number) => {
    await until(async () => (await openSubscriptions(fx.admin)) === n, `${n} open streams on the server`);
    expect(fx.server.app.openStreams).toBe(n);
  };

  beforeAll(async () => {
    fx = await startFixture('sqlite');
    serviceId = await fx.service();
    watcher = await start();
    await streamsOpen(1);
  });
  afterAll(async () => {
    await watcher?.close();
    await fx?.close();
  });

  it('close() ends the stream, reports closed once and calls no listener after', async () => {
    const config = await start();
    await streamsOpen(2);
    const statuses: ConfigStatus[] = [];
    let calls = 0;
    config.on('status', (s) => statuses.push(s));
    config.subscribe(() => calls++);
    await change(41);
    await until(() => calls === 1, 'the change at the client');

    await Promise.all([config.close(), config.close()]);
    await streamsOpen(1);
    expect(config.status).toBe('closed');
    expect(statuses).toEqual(['closed']);
    await change(42);
    expect(calls).toBe(1);
    expect(config.values.Payments.TimeoutSeconds).toBe(41); // still readable
  });

  it('aborting the signal closes it', async () => {
    const controller = new AbortController();
    const config = await start({ signal: controller.signal });
    await streamsOpen(2);
    controller.abort();
    await streamsOpen(1);
    await until(() => config.status === 'closed', 'status closed');
  });

  it('`await using` closes it at the end of the scope', async () => {
    {
      await using config = await start();
      await streamsOpen(2);
      expect(config.status).toBe('live');
    }
    await streamsOpen(1);
  });

  it('an aborted signal rejects connect, before or while it tries', async () => {
    await expect(start({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });

    const port = await findFreePort(); // nothing listens: connect keeps trying until aborted
    const controller = new AbortController();
    const attempt = connect({
      url: `http://127.0.0.1:${port}`,
      serviceId,
      version: '1.0.0',
      schema: paymentsSchema,
      pollingInterval: 50,
      startupTimeout: 60_000,
      signal: controller.signal,
      logger: { warn: () => undefined },
    });
    setTimeout(() => controller.abort(), 200);
    await expect(attempt).rejects.toMatchObject({ code: 'ABORTED' });
    await streamsOpen(1);
  });
});
