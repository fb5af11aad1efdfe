import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/root-route';

export interface ServicesSearch {
  readonly q?: string;
}

export const servicesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/services',
  validateSearch: (search: Record<string, unknown>): ServicesSearch =>
    typeof search.q === 'string' && search.q !== '' ? { q: search.q } : {},
  component: lazyRouteComponent(() => import('./services-page'), 'ServicesPage'),
});
