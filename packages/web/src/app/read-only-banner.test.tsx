import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../api/query-keys';
import { renderInTheme } from '../test-support/render';
import { ReadOnlyBanner } from './read-only-banner';

/** The banner as the server's /auth/instance describes the instance. */
function renderWith(follower: { primaryUrl: string | null } | null) {
  const client = new QueryClient();
  client.setQueryData(
    queryKeys.instanceRole,
    follower ? { role: 'follower', primaryUrl: follower.primaryUrl } : { role: 'primary', primaryUrl: null },
  );
  renderInTheme(
    <QueryClientProvider client={client}>
      <ReadOnlyBanner />
    </QueryClientProvider>,
  );
}

describe('the read-only banner', () => {
  it('names the primary a follower forwards to', () => {
    renderWith({ primaryUrl: 'https://config.eu.example.com' });
    expect(screen.getByRole('status').textContent).toBe('Read-only: follower of https://config.eu.example.com');
  });

  it('says read-only without a primary URL', () => {
    renderWith({ primaryUrl: null });
    expect(screen.getByRole('status').textContent).toBe('Read-only: follower');
  });

  it('is absent on a primary', () => {
    renderWith(null);
    expect(screen.queryByRole('status')).toBeNull();
  });
});
