import { createRoute, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { appRoute } from '../../app/root-route';

export const serviceRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/services/$serviceId',
  component: lazyRouteComponent(() => import('./service-layout'), 'ServiceLayout'),
});

const serviceIndexRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/services/$serviceId/versions', params, replace: true });
  },
});

export const versionsTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'versions',
  component: lazyRouteComponent(() => import('./versions-tab'), 'VersionsTab'),
});

export const membersTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'members',
  component: lazyRouteComponent(() => import('./members-tab'), 'MembersTab'),
});

export const apiKeysTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'api-keys',
  component: lazyRouteComponent(() => import('./api-keys-tab'), 'ApiKeysTab'),
});

export const auditTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'audit',
  validateSearch: (search: Record<string, unknown>): { entityType?: string } =>
    typeof search.entityType === 'string' && search.entityType !== '' ? { entityType: search.entityType } : {},
  component: lazyRouteComponent(() => import('./audit-tab'), 'AuditTab'),
});

export const serviceRoutes = serviceRoute.addChildren([
  serviceIndexRoute,
  versionsTabRoute,
  membersTabRoute,
  apiKeysTabRoute,
  auditTabRoute,
]);
