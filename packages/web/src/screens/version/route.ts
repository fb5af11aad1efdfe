import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/root-route';

export const versionRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/services/$serviceId/versions/$versionId',
  validateSearch: (search: Record<string, unknown>): { q?: string } =>
    typeof search.q === 'string' && search.q !== '' ? { q: search.q } : {},
  component: lazyRouteComponent(() => import('./version-page'), 'VersionPage'),
});

/** An entry's details (metadata, delete) in a drawer over its version: a deep link to one entry. */
export const entryRoute = createRoute({
  getParentRoute: () => versionRoute,
  path: 'entries/$entryId',
  component: lazyRouteComponent(() => import('./entry-drawer'), 'EntryDrawer'),
});
