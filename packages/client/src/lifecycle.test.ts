import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type ConfigError, type ConfigStatus } from './index.js';
import { recordingLogger, setValues, startFixture, until, versionIdOf, type Fixture } from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

describe('the life of a client', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture('sqlite');
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('falls back to the defaults when its version is deleted, then registers it again', async () => {
    const serviceId = await fx.service();
    const config = await connect({
      url: fx.url,
      serviceId,
      version: '1.0.0',
      schema: paymentsSchema,
      pollingInterval: 100,
      logger: recordingLogger(),
    });
    const errors: ConfigError[] = [];
    const statuses: ConfigStatus[] = [];
    config.on('error', (e) => errors.push(e));
    config.on('status', (s) => statuses.push(s));
    try {
      const deleted = config.versionId;
      await setValues(fx.admin, serviceId, deleted, { 'Payments:Provider': 'Adyen' });
      await until(() => config.values.Payments.Provider === 'Adyen', 'the change');

      expect((await fx.admin.delete(`/api/configversions/${serviceId}/${deleted}`)).status).toBe(204);
      await until(() => errors.some((e) => e.code === 'NOT_FOUND'), 'NOT_FOUND reported');
      await until(() => config.versionId !== deleted && config.status === 'live', 'a new registration');

      expect(config.versionId).toBe(await versionIdOf(fx.admin, serviceId, '1.0.0'));
      expect(config.values.Payments.Provider).toBe('Stripe');
      expect(statuses).toEqual(['reconnecting', 'live']);
      await setValues(fx.admin, serviceId, config.versionId, { 'Payments:Provider': 'again' });
      await until(() => config.values.Payments.Provider === 'again', 'a change of the new version');
    } finally {
      await config.close();
    }
  });

  it('keeps listeners that throw or reject from disturbing the others and the application', async () => {
    const serviceId = await fx.service();
    const logger = recordingLogger();
    const config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, logger });
    const seen: number[] = [];
    config.subscribe(() => {
      throw new Error('listener bug');
    });
    // An async listener that rejects: the client must catch what it returns.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    config.subscribe(() => Promise.reject(new Error('async listener bug')));
    config.subscribe((values) => seen.push(values.Payments.TimeoutSeconds));
    try {
      await setValues(fx.admin, serviceId, config.versionId, { 'Payments:TimeoutSeconds': '12' });
      await until(() => logger.messages.error.length === 2, 'both failures logged');
      expect(seen).toEqual([12]);
      expect(logger.messages.error.join('\n')).toMatch(/listener bug[\s\S]*async listener bug/);
      expect(config.status).toBe('live');
    } finally {
      await config.close();
    }
  });

  it('survives a logger that throws', async () => {
    const serviceId = await fx.service();
    const versionId = (await fx.admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    await fx.admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Payments:Provider',
      valueType: 1,
      rawValue: 'Adyen',
    });
    let thrown = 0;
    const logger = {
      warn: () => {
        thrown++;
        throw new Error('logger bug');
      },
    };
    // The version lacks most declared keys: connect warns, and the logger throws.
    const config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, logger });
    try {
      expect(thrown).toBe(1);
      expect(config.values.Payments.Provider).toBe('Adyen');
      await setValues(fx.admin, serviceId, versionId, { 'Payments:Provider': 'after' });
      await until(() => config.values.Payments.Provider === 'after', 'the change');
    } finally {
      await config.close();
    }
  });
});
