import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { onSignedOut } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { ProblemError } from '../api/problem';
import { createAppRouter } from './router';
import { cssVariablesResolver, theme } from './theme';

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // A problem the server answered (403, 404, …) will not change by asking again.
        retry: (failures, error) => !(error instanceof ProblemError && error.status > 0) && failures < 2,
      },
    },
  });
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(() => createAppRouter(queryClient));
  // A session that ended elsewhere (expired, signed out, password changed): back to the sign-in page.
  useEffect(
    () =>
      onSignedOut(() => {
        if (queryClient.getQueryData(queryKeys.me) === null) return;
        queryClient.setQueryData(queryKeys.me, null);
        const { pathname } = router.state.location;
        if (!pathname.startsWith('/sign-in')) void router.navigate({ to: '/sign-in', search: { returnUrl: pathname } });
      }),
    [queryClient, router],
  );
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
