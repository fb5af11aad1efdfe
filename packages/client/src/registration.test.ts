import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, defineConfig, group, number, string, type LiveConfig } from './index.js';
import {
  databaseKinds,
  entriesByKey,
  grpcCalls,
  recordingLogger,
  startFixture,
  versionIdOf,
  type Fixture,
} from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

describe.each(databaseKinds)('registration on %s', (kind) => {
  let fx: Fixture;
  const open: Array<LiveConfig<never>> = [];
  const track = <C>(config: C): C => {
    open.push(config as LiveConfig<never>);
    return config;
  };
  beforeAll(async () => {
    fx = await startFixture(kind);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await fx?.close();
  });

  it('registers a new label with every key, its group, type and default, and starts live on the defaults', async () => {
    const serviceId = await fx.service();
    const creates = await grpcCalls(fx.admin, 'CreateVersion');
    const config = track(await connect({ url: fx.url, serviceId, version: '1.4.2', schema: paymentsSchema }));

    expect(config.status).toBe('live');
    expect(config.versionId).toBe(await versionIdOf(fx.admin, serviceId, '1.4.2'));
    expect(await grpcCalls(fx.admin, 'CreateVersion')).toBe(creates + 1);
    expect(config.values.Payments).toEqual({
      Provider: 'Stripe',
      TimeoutSeconds: 30,
      Mode: 'Test',
      Enabled: true,
      Window: 300_000,
      StartsAt: null,
      Retries: [1, 2],
      Limits: { max: 1 },
      Retry: { Attempts: 3 },
    });
    expect(Object.isFrozen(config.values.Payments.Retries)).toBe(true);

    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    expect(Object.keys(entries).sort()).toEqual(
      [
        'Features:Checks',
        'Features:Hosts',
        ...['Provider', 'TimeoutSeconds', 'Mode', 'Enabled', 'Window', 'StartsAt', 'Retries', 'Limits'].map(
          (name) => `Payments:${name}`,
        ),
        'Payments:Retry:Attempts',
      ].sort(),
    );
    expect(entries['Payments:Provider']).toMatchObject({
      name: 'Provider',
      rawValue: 'Stripe',
      valueType: 1,
      description: 'Gateway name',
      groupName: 'Payments',
      groupDescription: 'Payment gateway',
    });
    expect(entries['Payments:Mode']).toMatchObject({ valueType: 5, rawValue: 'Test', enumDefinition: 'Live|Test' });
    expect(entries['Payments:Window']).toMatchObject({ valueType: 4, rawValue: '00:05:00' });
    expect(entries['Payments:StartsAt']).toMatchObject({ valueType: 3, rawValue: null });
    expect(entries['Payments:Retries']).toMatchObject({ valueType: 7, rawValue: '[1,2]' });
    expect(entries['Payments:Limits']).toMatchObject({ valueType: 8, rawValue: '{"max":1}' });
    expect(entries['Payments:Enabled']).toMatchObject({ valueType: 2, rawValue: 'true' });
    expect(entries['Payments:TimeoutSeconds']).toMatchObject({ valueType: 6, rawValue: '30' });
    expect(entries['Payments:Retry:Attempts']).toMatchObject({
      groupName: 'Payments:Retry',
      groupDescription: 'Retry policy',
    });
  });

  it('reuses an existing label without CreateVersion; a key the version lacks reads its default, with one warning', async () => {
    const serviceId = await fx.service();
    const versionId = (await fx.admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0.0' })).body.id;
    await fx.admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Http:BaseUrl',
      valueType: 1,
      rawValue: 'https://example.test',
    });
    const schema = defineConfig({
      Http: group({ BaseUrl: string({ default: 'http://localhost' }), Retries: number({ default: 7 }) }),
    });
    const logger = recordingLogger();
    const creates = await grpcCalls(fx.admin, 'CreateVersion');

    const config = track(await connect({ url: fx.url, serviceId, version: '2.0.0', schema, logger }));

    expect(config.versionId).toBe(versionId);
    expect(config.values.Http).toEqual({ BaseUrl: 'https://example.test', Retries: 7 });
    expect(logger.messages.warn).toHaveLength(1);
    expect(logger.messages.warn[0]).toContain('Http:Retries');
    expect(await grpcCalls(fx.admin, 'CreateVersion')).toBe(creates);
    expect(Object.keys(await entriesByKey(fx.admin, serviceId, versionId))).toEqual(['Http:BaseUrl']);
  });

  it('gives clients that register one label at once one version', async () => {
    const serviceId = await fx.service();
    const configs = await Promise.all(
      Array.from({ length: 4 }, () =>
        connect({ url: fx.url, serviceId, version: '3.0.0', schema: paymentsSchema }).then(track),
      ),
    );
    const versions = (await fx.admin.get<Array<{ id: string }>>(`/api/configversions/${serviceId}`)).body;
    expect(versions).toHaveLength(1);
    expect(new Set(configs.map((c) => c.versionId))).toEqual(new Set([versions[0]!.id]));
    expect(Object.keys(await entriesByKey(fx.admin, serviceId, versions[0]!.id))).toHaveLength(11);
  });

  it('rejects at once, saying what was tried, when the service does not exist', async () => {
    const serviceId = '00000000-0000-4000-8000-000000000000';
    const attempt = connect({
      url: fx.url,
      serviceId,
      version: '1.0.0',
      schema: paymentsSchema,
      startupTimeout: 60_000,
    });
    await expect(attempt).rejects.toMatchObject({
      name: 'ConfigError',
      code: 'NOT_FOUND',
      message: expect.stringMatching(
        /the server refused \(NOT_FOUND\), and no cacheFile is set\. Tried:\n {2}1\. CreateVersion at http:\/\/127\.0\.0\.1:\d+: .*not found/i,
      ),
    });
  });
});
