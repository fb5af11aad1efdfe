import type { QueryClient } from '@tanstack/react-query';
import { createRoute, createRouter, redirect } from '@tanstack/react-router';
import { accountRoute, passwordRoute } from '../screens/account/route';
import { compareRoute } from '../screens/compare/route';
import { serviceRoutes } from '../screens/service/route';
import { servicesRoute } from '../screens/services/route';
import { signInCallbackRoute, signInRoute } from '../screens/sign-in/route';
import { usersRoute } from '../screens/users/route';
import { entryRoute, versionRoute } from '../screens/version/route';
import { appRoute, rootRoute } from './root-route';

const homeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/services', search: {} });
  },
});

const routeTree = rootRoute.addChildren([
  signInRoute,
  signInCallbackRoute,
  appRoute.addChildren([
    homeRoute,
    servicesRoute,
    serviceRoutes,
    versionRoute.addChildren([entryRoute]),
    compareRoute,
    usersRoute,
    accountRoute,
    passwordRoute,
  ]),
]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    scrollRestoration: true,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
