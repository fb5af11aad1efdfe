import { Container, Stack, Text, Title } from '@mantine/core';
import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, Outlet, redirect } from '@tanstack/react-router';
import { meQuery } from '../screens/sign-in/use-session';
import { AnchorLink } from '../components/anchor-link';
import { AppLayout } from './layout';

export interface RouterContext {
  readonly queryClient: QueryClient;
}

function NotFound() {
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1}>Page not found</Title>
        <Text>There is nothing at this address.</Text>
        <AnchorLink to="/services">Go to the services</AnchorLink>
      </Stack>
    </Container>
  );
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFound,
});

/** Every screen that needs a signed-in user sits below this layout (navigation, sign-in gate). */
export const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  // Decided before any screen renders: who is signed in, and whether the default password must go first.
  beforeLoad: async ({ context, location }) => {
    const me = await context.queryClient.ensureQueryData(meQuery);
    if (!me) throw redirect({ to: '/sign-in', search: { returnUrl: location.href } });
    if (me.passwordChangeRequired && location.pathname !== '/account/password') {
      throw redirect({ to: '/account/password' });
    }
  },
  component: AppLayout,
});
