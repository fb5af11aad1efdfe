import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type ConfigChange, type ConfigError, type LiveConfig } from './index.js';
import {
  databaseKinds,
  entriesByKey,
  recordingLogger,
  setValues,
  startFixture,
  until,
  type Fixture,
} from './test-support/fixtures.js';
import { paymentsSchema, type PaymentsSchema } from './test-support/payments-schema.js';

type Call = { values: LiveConfig<PaymentsSchema>['values']; changes: ReadonlyArray<ConfigChange<PaymentsSchema>> };

describe.each(databaseKinds)('values and live changes on %s', (kind) => {
  let fx: Fixture;
  let serviceId: string;
  let config: LiveConfig<PaymentsSchema>;
  const calls: Call[] = [];
  const errors: ConfigError[] = [];
  const logger = recordingLogger();
  const set = (values: Record<string, string | null>) => setValues(fx.admin, serviceId, config.versionId, values);

  beforeAll(async () => {
    fx = await startFixture(kind);
    serviceId = await fx.service();
    config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, logger });
    config.subscribe((values, changes) => calls.push({ values, changes }));
    config.on('error', (error) => errors.push(error));
  });
  afterAll(async () => {
    await config?.close();
    await fx?.close();
  });

  it('reads every value type as the server stores it, one listener call per change event', async () => {
    const before = config.values;
    await set({
      'Payments:Provider': 'Adyen',
      'Payments:TimeoutSeconds': '2.5e1',
      'Payments:Mode': 'Live',
      'Payments:Enabled': 'False',
      'Payments:Window': '1.02:03:04.5000000',
      'Payments:StartsAt': '2026-11-21T12:00:00+01:00',
      'Payments:Retries': '[3, 4]',
      'Payments:Limits': '{"max": 5}',
      'Features:Hosts': '["a.test", "b.test"]',
    });
    await until(() => calls.length >= 1, 'the batch');

    expect(calls).toHaveLength(1);
    expect(config.values.Payments).toEqual({
      Provider: 'Adyen',
      TimeoutSeconds: 25,
      Mode: 'Live',
      Enabled: false,
      Window: ((26 * 60 + 3) * 60 + 4) * 1000 + 500,
      StartsAt: new Date('2026-11-21T11:00:00Z'),
      Retries: [3, 4],
      Limits: { max: 5 },
      Retry: { Attempts: 3 },
    });
    expect(config.values.Features.Hosts).toEqual(['a.test', 'b.test']);
    expect(calls[0]!.values).toBe(config.values);
    expect(calls[0]!.changes).toContainEqual({ key: 'Payments:TimeoutSeconds', oldValue: 30, newValue: 25 });
    expect(calls[0]!.changes).toContainEqual({ key: 'Payments:StartsAt', oldValue: null, newValue: expect.any(Date) });
    expect(calls[0]!.changes).toHaveLength(9);
    // The old generation is untouched, and unchanged groups are the same object.
    expect(before.Payments.Provider).toBe('Stripe');
    expect(config.values.Payments.Retry).toBe(before.Payments.Retry);
    expect(Object.isFrozen(config.values.Payments.Limits)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('applies single changes in order, reads booleans in any case and dates without offset as UTC', async () => {
    await set({ 'Payments:Enabled': 'TRUE' });
    await set({ 'Payments:StartsAt': '2026-01-02' });
    await set({ 'Payments:Window': '-00:00:01.25' });
    await until(() => calls.length >= 4, 'three changes');

    expect(calls.slice(1).map((c) => c.changes.map((ch) => ch.key))).toEqual([
      ['Payments:Enabled'],
      ['Payments:StartsAt'],
      ['Payments:Window'],
    ]);
    expect(config.values.Payments.Enabled).toBe(true);
    expect(config.values.Payments.StartsAt).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(config.values.Payments.Window).toBe(-1250);
  });

  it('falls back to the default when a key is deleted, and to null when it has none', async () => {
    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    const count = calls.length;
    for (const key of ['Payments:Provider', 'Payments:StartsAt']) {
      const res = await fx.admin.delete(`/api/configentries/${serviceId}/${config.versionId}/${entries[key]!.id}`);
      expect(res.status).toBe(204);
    }
    await until(() => calls.length >= count + 2, 'two deletions');

    expect(config.values.Payments.Provider).toBe('Stripe');
    expect(config.values.Payments.StartsAt).toBeNull();
    expect(calls.at(-2)!.changes).toEqual([{ key: 'Payments:Provider', oldValue: 'Adyen', newValue: 'Stripe' }]);
  });

  it('keeps the last good value of a remote value that does not parse, and reports it', async () => {
    // The server checks JSON objects, not the application's schema: level must be a non-negative integer.
    await set({ 'Features:Checks': '{"level": 4}' });
    await until(() => config.values.Features.Checks.level === 4, 'a valid value');
    await set({ 'Features:Checks': '{"level": -1}' });
    await until(() => errors.length >= 1, 'the error report');

    expect(config.values.Features.Checks).toEqual({ level: 4 });
    expect(errors[0]).toMatchObject({ code: 'INVALID_VALUE', key: 'Features:Checks' });
    expect(errors[0]!.message).toMatch(
      /Features:Checks: the remote value .*-1.* fails its schema .*keeping \{"level":4\}/,
    );
    expect(logger.messages.warn.some((m) => m.includes('Features:Checks'))).toBe(true);

    // An enum value the server allows (its definition was widened) but the application does not know.
    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    const mode = entries['Payments:Mode']!;
    const widened = await fx.admin.put(`/api/configentries/${serviceId}/${config.versionId}/${mode.id}`, {
      ...mode,
      enumDefinition: 'Live|Test|Beta',
      generation: mode.generation,
    });
    expect(widened.status).toBe(200);
    await set({ 'Payments:Mode': 'Beta' });
    await until(() => errors.length >= 2, 'the second error report');
    expect(errors[1]).toMatchObject({ code: 'INVALID_VALUE', key: 'Payments:Mode' });
    expect(config.values.Payments.Mode).toBe('Live');

    // The next good value is applied as usual.
    await set({ 'Features:Checks': '{"level": 0}' });
    await until(() => config.values.Features.Checks.level === 0, 'the next good value');
    expect(config.status).toBe('live');
  });
});
