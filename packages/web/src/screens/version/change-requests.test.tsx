import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeRequest, Me } from '@realtime-config/protocol/rest';
import { api } from '../../api/client';
import { renderInTheme } from '../../test-support/render';
import type { ServiceAccess } from '../service/use-service';
import { ChangeRequestCard } from './change-requests';

const person = (id: string): Me => ({
  id,
  email: null,
  name: id,
  provider: 'local',
  roles: ['developer'],
  policies: ['canChange'],
  permissions: ['canChange'],
  passwordChangeRequired: false,
});
const editor: ServiceAccess = { pending: false, role: 'editor', canAll: false, write: true, manage: false };
const viewer: ServiceAccess = { pending: false, role: 'viewer', canAll: false, write: false, manage: false };

const request = (overrides: Partial<ChangeRequest>): ChangeRequest => ({
  id: 'c1',
  serviceId: 's1',
  versionId: 'v1',
  title: 'Longer timeout',
  description: null,
  status: 'open',
  author: 'erin',
  authorName: 'erin',
  createdAt: '2026-11-26T09:30:00.000000Z',
  updatedAt: '2026-11-26T09:30:00.000000Z',
  closedBy: null,
  rolloutId: null,
  editors: [],
  requiredApprovals: 1,
  changes: [
    {
      id: 'e1',
      key: 'Payments:TimeoutSeconds',
      rawValue: '45',
      generation: 3,
      currentValue: '30',
      currentGeneration: 3,
    },
  ],
  approvals: [],
  ...overrides,
});

/** The card of a request of a protected version, as `me` with `access` sees it. */
function renderCard(cr: ChangeRequest, me: Me, access: ServiceAccess) {
  return renderInTheme(
    <QueryClientProvider client={new QueryClient()}>
      <ChangeRequestCard request={cr} serviceId="s1" versionId="v1" me={me} access={access} isProtected />
    </QueryClientProvider>,
  );
}

function buttonsOf(cr: ChangeRequest, me: Me, access: ServiceAccess): string[] {
  const { unmount } = renderCard(cr, me, access);
  const card = screen.getByRole('article', { name: cr.title });
  const names = within(card)
    .queryAllByRole('button')
    .map((b) => b.textContent ?? '');
  unmount();
  return names;
}

afterEach(() => vi.restoreAllMocks());

describe('the steps a change request offers', () => {
  it('lets another editor approve an open request, never its author', () => {
    expect(buttonsOf(request({}), person('olga'), editor)).toEqual(['Approve', 'Reject']);
    expect(buttonsOf(request({}), person('erin'), editor)).toEqual(['Reject', 'Edit', 'Withdraw']);
  });

  it('does not offer Approve to someone who edited the request', () => {
    expect(buttonsOf(request({ editors: ['olga'] }), person('olga'), editor)).toEqual(['Reject']);
    expect(buttonsOf(request({ editors: ['olga'] }), person('nina'), editor)).toEqual(['Approve', 'Reject']);
  });

  it('offers Apply and Apply as rollout… once approved, and nothing twice to the same approver', () => {
    const approved = request({
      status: 'approved',
      approvals: [{ userId: 'olga', userName: 'olga', approvedAt: '2026-11-26T09:41:12.000000Z' }],
    });
    expect(buttonsOf(approved, person('olga'), editor)).toEqual(['Apply', 'Apply as rollout…', 'Reject']);
    expect(buttonsOf(approved, person('vic'), viewer)).toEqual([]);
  });

  it('gives a viewer no step, and a closed request no step at all', () => {
    expect(buttonsOf(request({}), person('vic'), viewer)).toEqual([]);
    expect(buttonsOf(request({ status: 'applied' }), person('olga'), editor)).toEqual([]);
  });

  it('says where a request applied as a rollout goes on, without the rollout id', () => {
    const rolledOut = request({
      status: 'applied',
      closedBy: 'olga',
      rolloutId: '4f1c2b9e-0000-4000-8000-000000000001',
    });
    renderCard(rolledOut, person('olga'), editor);
    const card = screen.getByRole('article', { name: rolledOut.title });
    expect(card.textContent).toContain('applied as a rollout: its progress is under Rollouts');
    expect(card.textContent).not.toContain('4f1c2b9e');
  });

  it('lets the author edit a request, or base a stale one on current values unless it sets a secret', () => {
    const secret = {
      id: 'e2',
      key: 'Payments:ApiKey',
      rawValue: null,
      isSecret: true,
      redacted: true,
      fingerprint: 'abc',
      generation: 2,
      currentValue: null,
      currentGeneration: 3,
    };
    const stale = (changes: ChangeRequest['changes']) =>
      request({ status: 'stale', changes: changes.map((c) => ({ ...c, currentGeneration: c.generation + 1 })) });
    expect(buttonsOf(stale(request({}).changes), person('erin'), editor)).toEqual([
      'Reject',
      'Base on current values',
      'Edit',
      'Withdraw',
    ]);
    // The server never sends a secret's requested value back: only an edit, typing it again, sends it.
    expect(buttonsOf(stale([...request({}).changes, secret]), person('erin'), editor)).toEqual([
      'Reject',
      'Edit',
      'Withdraw',
    ]);
    const deleted = request({ changes: [{ ...secret, key: null, currentGeneration: null }] });
    expect(buttonsOf(deleted, person('erin'), editor)).toEqual(['Reject', 'Withdraw']);
  });

  it('shows the diff, before and after, by key', () => {
    renderInTheme(
      <QueryClientProvider client={new QueryClient()}>
        <ChangeRequestCard
          request={request({})}
          serviceId="s1"
          versionId="v1"
          me={person('olga')}
          access={editor}
          isProtected
        />
      </QueryClientProvider>,
    );
    const row = within(screen.getByRole('table', { name: 'Changes of Longer timeout' })).getAllByRole('row')[1];
    expect(row?.textContent).toMatch(/Payments:TimeoutSeconds.*30.*45/);
  });

  it('opens the rollout settings on Apply as rollout…, with the approved values, and sends nothing that breaks a rule', async () => {
    const post = vi.spyOn(api, 'POST');
    const approved = request({
      status: 'approved',
      approvals: [{ userId: 'olga', userName: 'olga', approvedAt: '2026-11-26T09:41:12.000000Z' }],
    });
    renderCard(approved, person('erin'), editor);
    const card = screen.getByRole('article', { name: 'Longer timeout' });
    await userEvent.click(within(card).getByRole('button', { name: 'Apply as rollout…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Roll out “Longer timeout”' });
    expect((within(dialog).getByRole('textbox', { name: 'Steps' }) as HTMLInputElement).value).toBe('10, 50, 100');
    expect((within(dialog).getByRole('textbox', { name: 'Step time' }) as HTMLInputElement).value).toBe('60s');
    const row = within(within(dialog).getByRole('table', { name: 'Changes to roll out' })).getAllByRole('row')[1];
    expect(row?.textContent).toMatch(/Payments:TimeoutSeconds.*30.*45/);
    const steps = within(dialog).getByRole('textbox', { name: 'Steps' });
    await userEvent.clear(steps);
    await userEvent.type(steps, '20, 50');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Start rollout' }));
    expect(await within(dialog).findByText('The last step is 100')).toBeTruthy();
    expect(post).not.toHaveBeenCalled();
  });
});
