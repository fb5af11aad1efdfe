import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/root-route';

export interface CompareSearch {
  readonly base?: string;
  readonly target?: string;
}

const id = (value: unknown) => (typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value) ? value : undefined);

/** Two versions of a service side by side (a deep link: both ids are in the address). */
export const compareRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/services/$serviceId/compare',
  validateSearch: (search: Record<string, unknown>): CompareSearch => {
    const base = id(search.base);
    const target = id(search.target);
    return { ...(base ? { base } : {}), ...(target ? { target } : {}) };
  },
  component: lazyRouteComponent(() => import('./compare-page'), 'ComparePage'),
});
