import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../app/root-route';

/** Only local paths are followed after sign-in (as the server's returnUrl rule). */
export function safeReturnUrl(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
    ? value
    : '/services';
}

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { returnUrl?: string } =>
    typeof search.returnUrl === 'string' ? { returnUrl: search.returnUrl } : {},
  component: lazyRouteComponent(() => import('./sign-in-page'), 'SignInPage'),
});

export const signInCallbackRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in/callback',
  component: lazyRouteComponent(() => import('./sign-in-callback'), 'SignInCallback'),
});
