import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../api/problem';
import { renderInTheme } from '../test-support/render';
import { ProblemAlert } from './problem-alert';

const refused = (violations: object[]) =>
  new ProblemError({
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: 'The change breaks its rules.',
    violations: violations as never,
  });

describe('the problem alert', () => {
  it('lists every rule a refused write broke: the key and the message, a validator by its answer', () => {
    renderInTheme(
      <ProblemAlert
        error={refused([
          {
            key: 'Http:TimeoutSeconds',
            entryId: 'e1',
            instancePath: '',
            keyword: 'maximum',
            message: 'must be <= 300',
          },
          { key: 'Http:Limits', entryId: 'e2', instancePath: '/max', keyword: 'maximum', message: 'must be <= 10' },
          { key: null, entryId: null, instancePath: '', keyword: 'validator', message: 'policy: no Friday deploys' },
        ])}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('The change breaks its rules.')).toBeTruthy();
    const rules = within(within(alert).getByRole('list', { name: 'Broken rules' })).getAllByRole('listitem');
    expect(rules.map((item) => item.textContent)).toEqual([
      'Http:TimeoutSeconds: must be <= 300',
      'Http:Limits /max: must be <= 10',
      'Validator: policy: no Friday deploys',
    ]);
  });

  it('shows no rule list for a problem without violations', () => {
    renderInTheme(<ProblemAlert error={refused([])} />);
    expect(screen.queryByRole('list', { name: 'Broken rules' })).toBeNull();
  });

  it('words a refused rollout’s fields: a value by its key’s own message, the settings by their names', () => {
    const problem = new ProblemError({
      title: 'Bad Request',
      status: 400,
      detail: 'The rollout is not valid.',
      errors: {
        'changes[0].rawValue': ['Http:TimeoutSeconds must be a number'],
        'match.labels': ['each label key (non-empty) and value is at most 200 characters'],
        stepSeconds: ['must be a whole number of seconds from 1 to 86400'],
      },
    });
    renderInTheme(<ProblemAlert error={problem} />);
    expect(
      within(screen.getByRole('alert'))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Http:TimeoutSeconds must be a number',
      'labels to match: each label key (non-empty) and value is at most 200 characters',
      'step time: must be a whole number of seconds from 1 to 86400',
    ]);
  });
});
