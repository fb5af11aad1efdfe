import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Me, PersonalToken, User } from '@realtime-config/protocol/rest';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { renderInTheme } from '../../test-support/render';
import { UsersPage } from './users-page';

const admin: Me = {
  id: 'admin',
  email: null,
  name: 'admin',
  provider: 'local',
  roles: ['admin'],
  policies: ['canAll', 'canChange', 'canReveal'],
  permissions: ['canAll', 'canChange', 'canReveal'],
  passwordChangeRequired: false,
};
const users: User[] = [
  {
    username: 'admin',
    role: 'admin',
    createdAt: '2026-11-01T08:00:00.000000Z',
    updatedAt: '2026-11-01T08:00:00.000000Z',
  },
  {
    username: 'erin',
    role: 'developer',
    createdAt: '2026-11-02T08:00:00.000000Z',
    updatedAt: '2026-11-02T08:00:00.000000Z',
  },
];
const token = (id: string, name: string, revokedAt: string | null = null): PersonalToken => ({
  id,
  name,
  prefix: `rcp_${id}abcdefg`.slice(0, 12),
  expiresAt: '2099-01-01T00:00:00.000000Z',
  createdAt: '2026-11-20T08:00:00.000000Z',
  lastUsedAt: null,
  revokedAt,
});

/** The server's answers: erin's tokens, and the revocation of one (after which it lists as revoked). */
function serveTokens() {
  let laptop = token('t1', 'laptop');
  const ok = (data: unknown, status = 200) => ({ data, response: new Response(null, { status }) }) as never;
  const get = vi.spyOn(api, 'GET').mockImplementation(((path: string) => {
    if (path === '/api/users/{username}/tokens')
      return Promise.resolve(ok([laptop, token('t2', 'ci', '2026-11-21T08:00:00.000000Z')]));
    if (path === '/api/users') return Promise.resolve(ok(users));
    return Promise.resolve(ok(admin));
  }) as never);
  const remove = vi.spyOn(api, 'DELETE').mockImplementation((() => {
    laptop = { ...laptop, revokedAt: '2026-11-26T09:30:00.000000Z' };
    return Promise.resolve(ok(undefined, 204));
  }) as never);
  return { get, remove };
}

afterEach(() => vi.restoreAllMocks());

describe("an admin and another user's personal tokens", () => {
  it("opens erin's tokens from the Users page and revokes one after asking", async () => {
    const { get, remove } = serveTokens();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    client.setQueryData(queryKeys.me, admin);
    client.setQueryData(queryKeys.users, users);
    renderInTheme(
      <QueryClientProvider client={client}>
        <UsersPage />
      </QueryClientProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Tokens of erin' }));
    const drawer = await screen.findByRole('dialog', { name: 'Personal access tokens of erin' });
    const table = await within(drawer).findByRole('table', { name: 'Personal access tokens' });
    expect(get).toHaveBeenCalledWith('/api/users/{username}/tokens', { params: { path: { username: 'erin' } } });
    expect(within(table).getByRole('row', { name: /ci/ }).textContent).toContain('Revoked');

    await userEvent.click(within(table).getByRole('button', { name: 'Revoke laptop' }));
    const question = await screen.findByRole('dialog', { name: 'Revoke laptop?' });
    await userEvent.click(within(question).getByRole('button', { name: 'Revoke token' }));
    expect(remove).toHaveBeenCalledWith('/api/users/{username}/tokens/{tokenId}', {
      params: { path: { username: 'erin', tokenId: 't1' } },
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Revoke laptop?' })).toBeNull());
    await waitFor(() => expect(within(table).getByRole('row', { name: /laptop/ }).textContent).toContain('Revoked'));
    expect(within(table).queryByRole('button', { name: /^Revoke/ })).toBeNull();
  });
});
