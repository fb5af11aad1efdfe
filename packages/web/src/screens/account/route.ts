import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/root-route';

export const accountRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/account',
  component: lazyRouteComponent(() => import('./account-page'), 'AccountPage'),
});

/** Where a first sign-in with the seeded default password must go before anything else. */
export const passwordRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/account/password',
  component: lazyRouteComponent(() => import('./password-page'), 'PasswordPage'),
});
