import { QueryClient, QueryClientProvider, useMutation } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ProblemError } from '../api/problem';
import { renderInTheme } from '../test-support/render';
import { RevokeCredentialButton, RevokeCredentialDialog, useCredentialRevocation } from './revoke-credential-dialog';

const credentials = [
  { id: 'k1', name: 'billing-prod' },
  { id: 'k2', name: 'billing-staging' },
];

/** A list of two credentials with one revoke question, as the token and API key lists have it. */
function Harness({ revoke }: { revoke: (id: string) => Promise<void> }) {
  const revocation = useCredentialRevocation(useMutation<unknown, Error, string>({ mutationFn: revoke }));
  return (
    <>
      {credentials.map((c) => (
        <RevokeCredentialButton key={c.id} revocation={revocation} credential={c} />
      ))}
      <RevokeCredentialDialog revocation={revocation} confirmLabel="Revoke key">
        Applications using this key are refused from now on.
      </RevokeCredentialDialog>
    </>
  );
}

function renderHarness(revoke: (id: string) => Promise<void>) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  renderInTheme(
    <QueryClientProvider client={client}>
      <Harness revoke={revoke} />
    </QueryClientProvider>,
  );
}

describe('revoking a credential', () => {
  it('asks about the credential whose button was pressed, revokes it by its id and closes', async () => {
    const revoke = vi.fn(() => Promise.resolve());
    renderHarness(revoke);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke billing-staging' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke billing-staging?' });
    expect(dialog.textContent).toContain('Applications using this key are refused from now on.');
    await userEvent.click(screen.getByRole('button', { name: 'Revoke key' }));
    expect(revoke).toHaveBeenCalledOnce();
    expect(revoke.mock.calls[0]).toEqual(['k2', expect.anything()]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('shows why it failed, and forgets it when cancelled and asked again', async () => {
    const problem = { title: 'Forbidden', status: 403, detail: 'Only owners revoke keys.' };
    renderHarness(() => Promise.reject(new ProblemError(problem)));
    await userEvent.click(screen.getByRole('button', { name: 'Revoke billing-prod' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Revoke key' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Only owners revoke keys.');
    expect(screen.getByRole('dialog', { name: 'Revoke billing-prod?' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: 'Revoke billing-prod' }));
    await screen.findByRole('dialog', { name: 'Revoke billing-prod?' });
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
