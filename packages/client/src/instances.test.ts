import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, watchVersion, type ConfigError } from './index.js';
import { recordingLogger, startFixture, until, type Fixture } from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

interface Instances {
  instances: Array<{ instanceId: string | null; sdk: string | null; labels: Record<string, string> }>;
  total: number;
}

describe('what the SDK tells the server about itself', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture('sqlite');
  });
  afterAll(async () => {
    await fx?.close();
  });

  const instancesOf = async (serviceId: string, versionId: string): Promise<Instances> =>
    (await fx.admin.get<Instances>(`/api/configversions/${serviceId}/${versionId}/instances`)).body;

  it('sends its instance id, labels and SDK version; watchVersion is listed too', async () => {
    const serviceId = await fx.service();
    const config = await connect({
      url: fx.url,
      serviceId,
      version: '1.0.0',
      schema: paymentsSchema,
      instanceId: 'checkout-0',
      labels: { region: 'eu-west-1', 'build,id': 'a=b%c' },
      logger: recordingLogger(),
    });
    const stop = new AbortController();
    const watching = (async () => {
      for await (const changes of watchVersion({
        url: fx.url,
        serviceId,
        versionId: config.versionId,
        signal: stop.signal,
        logger: recordingLogger(),
      })) {
        void changes;
      }
    })();
    try {
      await until(async () => (await instancesOf(serviceId, config.versionId)).total === 2, 'two instances listed');
      const { instances } = await instancesOf(serviceId, config.versionId);
      expect(instances).toContainEqual(
        expect.objectContaining({
          instanceId: 'checkout-0',
          sdk: '@realtime-config/client/0.1.0',
          labels: { region: 'eu-west-1', 'build,id': 'a=b%c' },
        }),
      );
      // Without the option: host name and process id.
      expect(instances).toContainEqual(
        expect.objectContaining({
          instanceId: `${hostname()}:${process.pid}`,
          sdk: '@realtime-config/client/0.1.0',
          labels: {},
        }),
      );
    } finally {
      stop.abort();
      await watching;
      await config.close();
    }
    await until(async () => (await instancesOf(serviceId, config.versionId)).total === 0, 'both gone');
  });

  it('refuses an instance id or labels it cannot send', async () => {
    const base = { url: fx.url, serviceId: await fx.service(), version: '1.0.0', schema: paymentsSchema };
    await expect(connect({ ...base, instanceId: 'naïve' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(connect({ ...base, instanceId: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(connect({ ...base, labels: { '': 'x' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(connect({ ...base, labels: { zone: 1 as unknown as string } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('options.labels.zone'),
    });
  });
});

describe('a server at its stream limit', () => {
  let fx: Fixture;
  beforeAll(async () => {
    // Streams without credentials (these) hold at most half of Server:MaxStreams: one stream here.
    fx = await startFixture('sqlite', ['--Server:MaxStreams=2']);
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('is asked again after its retry-after-ms, not after the polling interval', async () => {
    const serviceId = await fx.service();
    const options = { url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, logger: recordingLogger() };
    const holder = await connect(options);
    const errors: ConfigError[] = [];
    // A polling interval far longer than the test: only the server's retry-after-ms brings it back.
    const refused = await connect({ ...options, pollingInterval: 600_000 });
    refused.on('error', (e) => errors.push(e));
    try {
      await until(() => refused.status === 'reconnecting' || errors.length > 0, 'the refusal');
      await until(() => errors.length > 0, 'the refusal reported');
      expect(errors[0]?.message).toContain('ResourceExhausted');
      expect(errors[0]?.retryAfterMs).toBeGreaterThanOrEqual(1000);
      await holder.close();
      await until(() => refused.status === 'live', 'the retry after retry-after-ms');
    } finally {
      await holder.close();
      await refused.close();
    }
  });
});
