import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from './index.js';
import { entriesByKey, recordingLogger, startFixture, until, type Fixture } from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

/** The SDK's labels decide the values it gets, on its first load and on its stream (docs/targeting.md). */
describe('an instance with labels gets the overrides its labels match', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture('sqlite');
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('loads and follows the override for its labels; an instance without labels keeps the value', async () => {
    const serviceId = await fx.service();
    const options = { url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema };
    const plain = await connect({ ...options, logger: recordingLogger() });
    const setOverride = async (rawValue: string) => {
      const entry = (await entriesByKey(fx.admin, serviceId, plain.versionId))['Payments:TimeoutSeconds'];
      const res = await fx.admin.put(`/api/configentries/${serviceId}/${plain.versionId}/${entry?.id}/overrides`, {
        overrides: [{ labels: { region: 'eu' }, rawValue }],
        generation: entry?.generation,
      });
      expect(res.status, res.text).toBe(200);
    };
    await setOverride('45');
    const eu = await connect({ ...options, labels: { region: 'eu', zone: 'b' }, logger: recordingLogger() });
    try {
      expect(eu.values.Payments.TimeoutSeconds).toBe(45);
      await setOverride('50');
      await until(() => eu.values.Payments.TimeoutSeconds === 50, 'the new override reaches the instance');
      await until(
        () => plain.values.Payments.TimeoutSeconds === 30 && plain.versionId === eu.versionId,
        'the instance without labels keeps the value',
      );
    } finally {
      await eu.close();
      await plain.close();
    }
  });
});
