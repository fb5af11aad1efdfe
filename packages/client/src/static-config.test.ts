import { describe, expect, it } from 'vitest';
import { staticConfig, type ConfigChange, type ConfigStatus } from './index.js';
import { paymentsSchema, type PaymentsSchema } from './test-support/payments-schema.js';

describe('staticConfig for application tests', () => {
  it('reads the defaults with the overrides on top, frozen', () => {
    const config = staticConfig(paymentsSchema, { Payments: { TimeoutSeconds: 99, Retry: { Attempts: 0 } } });
    expect(config.values.Payments).toMatchObject({ Provider: 'Stripe', TimeoutSeconds: 99, Retry: { Attempts: 0 } });
    expect(config.values.Features.Hosts).toBeNull();
    expect(config.status).toBe('offline');
    expect(config.versionId).toBe('');
    expect(Object.isFrozen(config.values.Payments)).toBe(true);
  });

  it('plays updates to subscribers, once per update, with typed changes', async () => {
    const config = staticConfig(paymentsSchema);
    const calls: Array<ReadonlyArray<ConfigChange<PaymentsSchema>>> = [];
    const statuses: ConfigStatus[] = [];
    const off = config.subscribe((_, changes) => calls.push(changes));
    config.on('status', (s) => statuses.push(s));

    config.update({ Payments: { Mode: 'Live', Enabled: false }, Features: { Hosts: ['a'] } });
    config.update({ Payments: { Mode: 'Live' } }); // no change: no call
    config.update({ Payments: { Mode: null } }); // back to the default
    expect(calls).toEqual([
      [
        { key: 'Payments:Mode', oldValue: 'Test', newValue: 'Live' },
        { key: 'Payments:Enabled', oldValue: true, newValue: false },
        { key: 'Features:Hosts', oldValue: null, newValue: ['a'] },
      ],
      [{ key: 'Payments:Mode', oldValue: 'Live', newValue: 'Test' }],
    ]);

    off();
    config.update({ Payments: { TimeoutSeconds: 1 } });
    expect(calls).toHaveLength(2);
    await config.close();
    expect(statuses).toEqual(['closed']);
  });

  it('refuses overrides the schema does not have or that do not fit', () => {
    expect(() => staticConfig(paymentsSchema, { Payments: { Nope: 1 } } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'staticConfig(): the schema has no Payments:Nope' }),
    );
    expect(() => staticConfig(paymentsSchema, { Payments: { Mode: 'Beta' as 'Live' } })).toThrow(
      /Payments:Mode: "Beta" is not one of Live, Test/,
    );
    expect(() => staticConfig(paymentsSchema, { Features: { Checks: { level: -1 } } })).toThrow(
      /Features:Checks: .* fails its schema/,
    );
  });
});
