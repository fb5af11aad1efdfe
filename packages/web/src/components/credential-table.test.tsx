import { QueryClient, QueryClientProvider, useMutation } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderInTheme } from '../test-support/render';
import { CredentialTable, type ListedCredential } from './credential-table';

interface Key extends ListedCredential {
  readonly scopes: string[];
  readonly createdBy: string | null;
}

const key = (overrides: Partial<Key>): Key => ({
  id: 'k1',
  name: 'billing-prod',
  prefix: 'rck_AbCdEfGh',
  scopes: ['read'],
  createdAt: '2026-11-26T09:30:00.000000Z',
  createdBy: 'olga',
  lastUsedAt: null,
  revokedAt: null,
  ...overrides,
});

function Harness(props: { keys?: Key[]; secret?: string | null; revoke?: (id: string) => Promise<void> }) {
  const revoke = useMutation<unknown, Error, string>({ mutationFn: props.revoke ?? (() => Promise.resolve()) });
  return (
    <CredentialTable
      label="API keys"
      noun="Key"
      list={{ data: props.keys, isPending: props.keys === undefined, error: null }}
      loadingLabel="Loading API keys"
      empty="No API keys yet"
      columns={[{ header: 'Scopes', cell: (k) => k.scopes.join(', ') }]}
      createdBy={(k) => k.createdBy}
      lapsed={(k) => (k.name.startsWith('old') ? 'Expired' : null)}
      revoke={revoke}
      revokeWarning="Applications using this key are refused from now on."
      shownOnce={{
        value: props.secret ?? null,
        title: 'API key created',
        valueLabel: 'New API key',
        copyLabel: 'Copy key',
        onClose: () => undefined,
        children: 'This is the only time the key is shown.',
      }}
    />
  );
}

function renderTable(props: Parameters<typeof Harness>[0]) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  renderInTheme(
    <QueryClientProvider client={client}>
      <Harness {...props} />
    </QueryClientProvider>,
  );
}

const cellsOf = (name: string) =>
  within(screen.getByRole('row', { name: new RegExp(name) }))
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('a table of credentials', () => {
  it('shows each credential by name and first characters, its own columns, when made and last used', () => {
    renderTable({
      keys: [key({ lastUsedAt: '2026-11-27T10:00:00.000000Z' }), key({ id: 'k2', name: 'ci', createdBy: null })],
    });
    const table = screen.getByRole('table', { name: 'API keys' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Name', 'Key starts with', 'Scopes', 'Created', 'Last used', 'Status']);
    const [name, prefix, scopes, created, lastUsed, status] = cellsOf('billing-prod');
    expect([name, prefix, scopes]).toEqual(['billing-prod', 'rck_AbCdEfGh…', 'read']);
    expect(created).toMatch(/ by olga$/);
    expect(lastUsed).toBe(new Date('2026-11-27T10:00:00.000000Z').toLocaleString());
    expect(status).toBe('Revoke billing-prod');
    expect(cellsOf('ci')[3]).not.toContain('by');
    expect(cellsOf('ci')[4]).toBe('never');
  });

  it('offers Revoke only for live credentials, a badge saying why for the others', () => {
    renderTable({
      keys: [
        key({}),
        key({ id: 'k2', name: 'gone', revokedAt: '2026-11-27T10:00:00.000000Z' }),
        key({ id: 'k3', name: 'old-one' }),
      ],
    });
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Revoke billing-prod']);
    expect(cellsOf('gone')[5]).toBe('Revoked');
    expect(cellsOf('old-one')[5]).toBe('Expired');
  });

  it('revokes after asking, with the kind in the question', async () => {
    const revoke = vi.fn((_id: string) => Promise.resolve());
    renderTable({ keys: [key({})], revoke });
    await userEvent.click(screen.getByRole('button', { name: 'Revoke billing-prod' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke billing-prod?' });
    expect(dialog.textContent).toContain('Applications using this key are refused from now on.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    expect(revoke.mock.calls[0]?.[0]).toBe('k1');
  });

  it('says it is loading, or that there is none, in place of the table', () => {
    renderTable({ keys: undefined });
    expect(screen.getByLabelText('Loading API keys')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a new secret once, apart from the list', async () => {
    renderTable({ keys: [], secret: 'rck_the-whole-secret' });
    expect(screen.getByText('No API keys yet')).toBeTruthy();
    const dialog = await screen.findByRole('dialog', { name: 'API key created' });
    expect(within(dialog).getByLabelText('New API key').textContent).toBe('rck_the-whole-secret');
    expect(within(dialog).getByRole('button', { name: 'Copy key' })).toBeTruthy();
  });
});
