import { OpenFeature, ProviderEvents, ProviderStatus, type EventDetails } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '@realtime-config/test-support/server-process';
import { readMetric } from '@realtime-config/test-support/realtime-fixtures';
import type { ApiClient } from '@realtime-config/test-support/test-server';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { recordingLogger, setValues, until } from '../../client/src/test-support/fixtures.js';
import { serverProcesses, type ServerProcesses } from '../../client/src/test-support/server-processes.js';
import { RealtimeConfigProvider } from './index.js';

const VERSION = '1.0.0';
const ENTRIES: Array<[string, number, string | null, Record<string, unknown>?]> = [
  ['Features:NewCheckout', 2, 'true'],
  ['Payments:TimeoutSeconds', 6, '30'],
  ['Payments:Provider', 1, 'Stripe'],
  ['Payments:Mode', 5, 'Live', { enumDefinition: 'Live|Test' }],
  ['Payments:Cutover', 3, '2026-05-01T09:30:00Z'],
  ['Payments:RetryAfter', 4, '00:00:30'],
  ['Payments:Regions', 7, '["eu","us"]'],
  ['Payments:Limits', 8, '{"max":5}'],
  ['Payments:Unset', 1, null],
];
const OFREP_ANSWERS = 'http_requests_total';
const ofrepLabels = (status: string) => `method="POST",route="/ofrep/v1/evaluate/flags",status="${status}"`;

describe.each(oneDatabaseKind)('the OpenFeature provider on the live connection, on %s', (kind) => {
  let processes: ServerProcesses;
  let server: ServerProcess;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let apiKey: string;
  let provider: RealtimeConfigProvider;
  const events: Array<[string, EventDetails | undefined]> = [];

  beforeAll(async () => {
    processes = await serverProcesses(kind);
    server = await processes.start();
    admin = await processes.admin(server);
    serviceId = (await admin.post('/api/services', { name: 'openfeature' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: VERSION })).body.id;
    for (const [key, valueType, rawValue, extra] of ENTRIES) {
      const body = { key, valueType, ...(rawValue === null ? {} : { rawValue }), ...extra };
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, body);
      expect(created.status, created.text).toBe(201);
    }
    apiKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'flags', scopes: ['read'] })).body.key;
    provider = new RealtimeConfigProvider({
      url: processes.url,
      serviceId,
      version: VERSION,
      apiKey,
      pollingInterval: 50,
      logger: recordingLogger(),
    });
    for (const event of [ProviderEvents.Ready, ProviderEvents.ConfigurationChanged, ProviderEvents.Stale]) {
      OpenFeature.addHandler(event, (details) => void events.push([event, details]));
    }
    await OpenFeature.setProviderAndWait('live', provider);
  }, 120_000);
  afterAll(async () => {
    await OpenFeature.close();
    await processes?.cleanup();
  });

  it('is READY after the snapshot and resolves every entry type in process, without a request per flag', async () => {
    const flags = OpenFeature.getClient('live');
    expect(flags.providerStatus).toBe(ProviderStatus.READY);
    expect(events.map(([e]) => e)).toContain(ProviderEvents.Ready);
    const before = await readMetric(admin, OFREP_ANSWERS, ofrepLabels('200'));
    const bool = await flags.getBooleanDetails('Features:NewCheckout', false);
    expect(bool).toMatchObject({ value: true, reason: 'STATIC', variant: 'value' });
    expect(bool.flagMetadata).toMatchObject({ versionId, generation: expect.any(Number) });
    expect(await flags.getNumberValue('Payments:TimeoutSeconds', 0)).toBe(30);
    for (const [key, value] of [
      ['Payments:Provider', 'Stripe'],
      ['Payments:Mode', 'Live'],
      ['Payments:Cutover', '2026-05-01T09:30:00Z'],
      ['Payments:RetryAfter', '00:00:30'],
    ]) {
      expect(await flags.getStringValue(key ?? '', ''), key).toBe(value);
    }
    expect(await flags.getObjectValue('Payments:Regions', [])).toEqual(['eu', 'us']);
    expect(await flags.getObjectValue('Payments:Limits', {})).toEqual({ max: 5 });
    expect(await flags.getStringDetails('Payments:Unset', 'code')).toMatchObject({ value: 'code', reason: 'DEFAULT' });
    expect(await flags.getStringDetails('Payments:Nope', 'd')).toMatchObject({
      value: 'd',
      reason: 'ERROR',
      errorCode: 'FLAG_NOT_FOUND',
    });
    expect(await flags.getBooleanDetails('Payments:Provider', false)).toMatchObject({
      value: false,
      reason: 'ERROR',
      errorCode: 'TYPE_MISMATCH',
    });
    expect(await readMetric(admin, OFREP_ANSWERS, ofrepLabels('200'))).toBe(before);
  });

  it('emits CONFIGURATION_CHANGED with flagsChanged after a REST set, and resolves the new value', async () => {
    const flags = OpenFeature.getClient('live');
    const seen = events.length;
    await setValues(admin, serviceId, versionId, { 'Payments:Provider': 'Adyen', 'Payments:TimeoutSeconds': '45' });
    await until(
      () => events.slice(seen).some(([e]) => e === ProviderEvents.ConfigurationChanged),
      'CONFIGURATION_CHANGED',
    );
    const [, details] = events.slice(seen).find(([e]) => e === ProviderEvents.ConfigurationChanged) ?? [];
    expect([...((details as { flagsChanged?: string[] } | undefined)?.flagsChanged ?? [])].sort()).toEqual([
      'Payments:Provider',
      'Payments:TimeoutSeconds',
    ]);
    expect(await flags.getStringValue('Payments:Provider', '')).toBe('Adyen');
    expect(await flags.getNumberValue('Payments:TimeoutSeconds', 0)).toBe(45);
  });

  it('evaluates a context with a targetingKey through one OFREP bulk call, cached until the next change', async () => {
    const flags = OpenFeature.getClient('live');
    const user = { targetingKey: 'user-42', plan: 'gold' };
    const calls = async () =>
      (await readMetric(admin, OFREP_ANSWERS, ofrepLabels('200'))) +
      (await readMetric(admin, OFREP_ANSWERS, ofrepLabels('304')));
    const before = await calls();
    expect(await flags.getStringDetails('Payments:Provider', '', user)).toMatchObject({
      value: 'Adyen',
      reason: 'STATIC',
      flagMetadata: { versionId },
    });
    expect(await flags.getNumberValue('Payments:TimeoutSeconds', 0, user)).toBe(45);
    expect(await flags.getBooleanDetails('Payments:Provider', true, user)).toMatchObject({
      value: true,
      errorCode: 'TYPE_MISMATCH',
    });
    expect(await flags.getStringDetails('Payments:Nope', 'd', user)).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
    expect(await calls()).toBe(before + 1);

    const seen = events.length;
    await setValues(admin, serviceId, versionId, { 'Payments:Provider': 'Mollie' });
    await until(() => events.slice(seen).some(([e]) => e === ProviderEvents.ConfigurationChanged), 'the change');
    expect(await flags.getStringValue('Payments:Provider', '', user)).toBe('Mollie');
    expect(await calls()).toBe(before + 2);
  });

  it('is STALE while its server restarts, READY again after, and misses no change', async () => {
    const flags = OpenFeature.getClient('live');
    const seen = events.length;
    await processes.stop(server);
    await until(() => events.slice(seen).some(([e]) => e === ProviderEvents.Stale), 'PROVIDER_STALE');
    expect(flags.providerStatus).toBe(ProviderStatus.STALE);
    const elsewhere = await processes.startElsewhere();
    await setValues(await processes.admin(elsewhere), serviceId, versionId, { 'Payments:Mode': 'Test' });
    await processes.stop(elsewhere);

    server = await processes.start();
    admin = await processes.admin(server);
    await until(() => flags.providerStatus === ProviderStatus.READY, 'READY after the restart', 30_000);
    await until(async () => (await flags.getStringValue('Payments:Mode', '')) === 'Test', 'the change made meanwhile');
    const after = events.slice(seen).map(([e]) => e);
    expect(after.indexOf(ProviderEvents.Stale)).toBeLessThan(after.lastIndexOf(ProviderEvents.Ready));
  });

  it('reports PROVIDER_ERROR when it cannot start', async () => {
    const missing = new RealtimeConfigProvider({ url: processes.url, serviceId, version: '9.9.9', apiKey });
    await expect(OpenFeature.setProviderAndWait('missing', missing)).rejects.toThrow(/9\.9\.9/);
    expect(OpenFeature.getClient('missing').providerStatus).toBe(ProviderStatus.ERROR);
  });
});
