import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Rollout } from '@realtime-config/protocol/rest';
import { renderInTheme } from '../../../test-support/render';
import { RolloutsSection } from './rollouts-section';

const rollout = (fields: Partial<Rollout>): Rollout => ({
  id: 'r1',
  serviceId: 's1',
  versionId: 'v1',
  status: 'running',
  changes: [
    { id: 'e1', key: 'Payments:TimeoutSeconds', rawValue: '45', generation: 3 },
    { id: 'e2', key: 'Payments:ApiKey', rawValue: null, generation: 1, isSecret: true },
  ],
  steps: [10, 50, 100],
  step: 0,
  percent: 10,
  stepSeconds: 60,
  bakeSeconds: 300,
  startAt: '2026-11-26T09:30:00.000000Z',
  stepStartedAt: '2026-11-26T09:30:00.000000Z',
  nextAt: '2026-11-26T09:31:00.000000Z',
  match: { labels: { region: 'eu' } },
  rollback: { disconnectedShare: 0.2 },
  received: 4,
  gone: 1,
  createdBy: 'olga',
  createdAt: '2026-11-26T09:30:00.000000Z',
  updatedAt: '2026-11-26T09:30:00.000000Z',
  reason: null,
  ...fields,
});

function show(list: Rollout[], mayAct = true) {
  return renderInTheme(
    <QueryClientProvider client={new QueryClient()}>
      <RolloutsSection
        serviceId="s1"
        versionId="v1"
        rollouts={{ data: list, isPending: false, error: null }}
        mayAct={mayAct}
      />
    </QueryClientProvider>,
  );
}

const card = () => screen.getByRole('article', { name: 'Rollout of Payments:TimeoutSeconds and Payments:ApiKey' });
const buttons = () =>
  within(card())
    .queryAllByRole('button')
    .map((b) => b.textContent);

describe('the Rollouts section of a version', () => {
  it('shows a running rollout: its step marked, its share, what comes next, its values with a secret redacted', () => {
    show([rollout({})]);
    const article = card();
    expect(within(article).getByText('Running')).toBeTruthy();
    expect(
      within(article)
        .getByRole('progressbar', { name: /Share of instances/ })
        .getAttribute('aria-valuenow'),
    ).toBe('10');
    const steps = within(within(article).getByRole('list', { name: 'Steps' })).getAllByRole('listitem');
    expect(steps.map((s) => [s.textContent, s.getAttribute('aria-current')])).toEqual([
      ['10 % (now)', 'step'],
      ['50 %', null],
      ['100 %', null],
    ]);
    expect(within(article).getByText(/^Next step \(50 %\)/)).toBeTruthy();
    expect(
      within(article).getByText(/4 instances received the new values; 1 of them is disconnected now/),
    ).toBeTruthy();
    expect(within(article).getByText(/rolls back by itself when 20 % of them/)).toBeTruthy();
    expect(within(article).getByText('region=eu')).toBeTruthy();
    const rows = within(within(article).getByRole('table')).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual([
      'KeyNew value',
      'Payments:TimeoutSeconds45',
      'Payments:ApiKey•••••• (secret)',
    ]);
    expect(buttons()).toEqual(['Pause', 'Promote…', 'Roll back…']);
  });

  it('offers Resume on a paused one, nothing on an ended one or to a viewer, and says why it ended', () => {
    const { unmount } = show([rollout({ status: 'paused', nextAt: null })]);
    expect(buttons()).toEqual(['Resume', 'Promote…', 'Roll back…']);
    unmount();

    const view = show([rollout({})], false);
    expect(buttons()).toEqual([]);
    view.unmount();

    show([rollout({ status: 'rolled_back', nextAt: null, reason: 'rolled back by olga' })]);
    expect(buttons()).toEqual([]);
    expect(within(card()).getByText('Rolled back')).toBeTruthy();
    expect(within(card()).getByText('Reason: rolled back by olga')).toBeTruthy();
    expect(within(card()).queryByRole('progressbar')).toBeNull();
    expect(screen.getByText(/^No rollout is running/)).toBeTruthy();
  });

  it('is left out while the version has had no rollout', () => {
    show([]);
    expect(screen.queryByRole('region', { name: 'Rollouts' })).toBeNull();
  });
});
