import { describe, expect, it } from 'vitest';
import type { PlanOutcome } from '@realtime-config/protocol/rest';
import { valuesOfPlan } from './plan-review';

const side = (value: string | null, extra: { id?: string; generation?: number } = {}) => ({
  value,
  valueType: 2,
  valueTypeName: 'Number',
  ...extra,
});
const plan = (changes: PlanOutcome['changes']): PlanOutcome => ({
  changes,
  unchanged: 0,
  basedOn: 't',
  applied: false,
  validators: [],
});

describe('a dry run as the changes of a change request', () => {
  it('takes each value set with the entry and generation it was planned from', () => {
    const values = valuesOfPlan(
      plan([
        {
          key: 'A:B',
          action: 'set',
          current: side('30', { id: 'e1', generation: 4 }),
          next: side('45'),
          violations: [],
        },
      ]),
    );
    expect(values).toEqual([{ id: 'e1', key: 'A:B', before: '30', after: '45', generation: 4 }]);
  });

  it('refuses, naming them, plans that create or delete keys', () => {
    const values = valuesOfPlan(
      plan([
        {
          key: 'A:B',
          action: 'set',
          current: side('30', { id: 'e1', generation: 4 }),
          next: side('45'),
          violations: [],
        },
        { key: 'A:New', action: 'create', current: null, next: side('1'), violations: [] },
        { key: 'A:Old', action: 'delete', current: side('2', { id: 'e2', generation: 1 }), next: null, violations: [] },
      ]),
    );
    expect(values).toMatch(/create A:New, delete A:Old/);
  });
});
