import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PlanOutcome } from '@realtime-config/protocol/rest';
import { renderInTheme } from '../../test-support/render';
import { breaksRules, PlanView } from './plan-view';

const side = (value: string | null) => ({ value, valueType: 6, valueTypeName: 'Number', id: 'e1', generation: 2 });

const plan: PlanOutcome = {
  changes: [
    {
      key: 'Http:TimeoutSeconds',
      action: 'set',
      current: side('30'),
      next: side('3000'),
      violations: [
        { key: 'Http:TimeoutSeconds', entryId: 'e1', instancePath: '', keyword: 'maximum', message: 'must be <= 300' },
      ],
    },
    { key: 'Http:Retries', action: 'set', current: side('1'), next: side('2'), violations: [] },
  ],
  unchanged: 0,
  basedOn: 't',
  applied: false,
  validators: [
    {
      id: 'v1',
      url: 'https://ci.example.com/validate',
      passed: false,
      statusCode: 422,
      message: 'policy: no Friday deploys',
    },
    { id: 'v2', url: 'https://lint.example.com/validate', passed: true, statusCode: 204, message: '' },
  ],
};

describe('the preview of an import, a restore or a copy', () => {
  it('marks a value that breaks its schema with the rule, and lists the validators that would refuse', () => {
    renderInTheme(<PlanView plan={plan} caption="Changes of the preview" />);
    const table = screen.getByRole('table', { name: 'Changes of the preview' });
    const [, broken, fine] = within(table).getAllByRole('row');
    expect(within(broken!).getByText('must be <= 300')).toBeTruthy();
    expect(within(fine!).queryByText(/must be/)).toBeNull();
    expect(screen.getByText(/break their entry's schema: applying them is refused/)).toBeTruthy();
    const answers = within(screen.getByRole('list', { name: 'Validator answers' })).getAllByRole('listitem');
    expect(answers.map((a) => a.textContent)).toEqual(['https://ci.example.com/validate: policy: no Friday deploys']);
    expect(breaksRules(plan)).toBe(true);
  });
});
