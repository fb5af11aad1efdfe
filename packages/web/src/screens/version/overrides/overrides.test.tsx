import { ValueType } from '@realtime-config/protocol';
import type { Entry } from '@realtime-config/protocol/rest';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../api/problem';
import { ProblemAlert } from '../../../components/problem-alert';
import { renderInTheme } from '../../../test-support/render';
import { draftOf, labelsProblem, moved, overridesBody, sameAsStored, valueProblem } from './override-draft';
import { OverridesList } from './overrides-section';

const entry = (fields: Partial<Entry>): Entry =>
  ({
    id: 'e1',
    key: 'Http:TimeoutSeconds',
    valueType: ValueType.NUMBER,
    enumDefinition: null,
    isSecret: false,
    rawValue: '30',
    overrides: [
      { labels: { region: 'eu', tier: 'gold' }, rawValue: '60' },
      { labels: { region: 'eu' }, rawValue: '45' },
    ],
    ...fields,
  }) as Entry;

describe('overrides in the entry details', () => {
  it('lists them read-only in order, labels as key=value, a secret’s values redacted', () => {
    renderInTheme(<OverridesList entry={entry({})} />);
    const rows = within(screen.getByRole('table', { name: 'Overrides' })).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual(['#LabelsValue', '1region=eutier=gold60', '2region=eu45']);
    expect(screen.queryAllByRole('button')).toEqual([]);

    renderInTheme(
      <OverridesList
        entry={entry({ isSecret: true, overrides: [{ labels: { region: 'eu' }, rawValue: null, redacted: true }] })}
      />,
    );
    expect(screen.getByText('•••••• (secret)')).toBeTruthy();
  });

  it('sends what the rows say, checks labels and values, and knows when nothing changed', () => {
    const stored = entry({});
    const rows = draftOf(stored);
    expect(sameAsStored(rows, stored)).toBe(true);
    const swapped = moved(rows, 1, -1);
    expect(sameAsStored(swapped, stored)).toBe(false);
    expect(overridesBody(swapped)).toEqual([
      { labels: { region: 'eu' }, rawValue: '45' },
      { labels: { region: 'eu', tier: 'gold' }, rawValue: '60' },
    ]);
    expect(labelsProblem([])).toMatch(/^At least one label/);
    expect(labelsProblem(['region'])).toBe('“region” is not key=value.');
    expect(labelsProblem(['url=a=b'])).toBeNull();
    expect(valueProblem(stored, 'abc')).not.toBeNull();
    // A secret's stored override values never reach the console: kept rows must be typed again.
    const secret = entry({ isSecret: true });
    expect(draftOf(secret).every((r) => r.raw === undefined)).toBe(true);
    expect(valueProblem(secret, undefined)).toMatch(/^Type this value again/);
  });

  it('names a refused override by its place, not by the field name of the API', () => {
    const refused = new ProblemError({
      title: 'Bad Request',
      status: 400,
      detail: 'Invalid overrides.',
      errors: { 'overrides[1].rawValue': ['must be a number'] },
    });
    renderInTheme(<ProblemAlert error={refused} />);
    expect(screen.getByRole('alert').textContent).toContain('Override 2 value: must be a number');
  });
});
