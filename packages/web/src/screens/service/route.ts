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

export const webhooksTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'webhooks',
  component: lazyRouteComponent(() => import('./webhooks-tab'), 'WebhooksTab'),
});

export const validatorsTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'validators',
  component: lazyRouteComponent(() => import('./validators-tab'), 'ValidatorsTab'),
});

/** The audit log's filters, kept in the address (a link to "what Dana changed in 1.1.0 yesterday"). */
export interface AuditFilters {
  readonly entityType?: string;
  readonly versionId?: string;
  readonly userId?: string;
  readonly action?: string;
  /** Local date and time (datetime-local), both ends included to the minute. */
  readonly from?: string;
  readonly to?: string;
}

const AUDIT_FILTERS = ['entityType', 'versionId', 'userId', 'action', 'from', 'to'] as const;

export const auditTabRoute = createRoute({
  getParentRoute: () => serviceRoute,
  path: 'audit',
  validateSearch: (search: Record<string, unknown>): AuditFilters =>
    Object.fromEntries(
      AUDIT_FILTERS.flatMap((name) => {
        const value = search[name];
        return typeof value === 'string' && value !== '' ? [[name, value]] : [];
      }),
    ),
  component: lazyRouteComponent(() => import('./audit-tab'), 'AuditTab'),
});

export const serviceRoutes = serviceRoute.addChildren([
  serviceIndexRoute,
  versionsTabRoute,
  membersTabRoute,
  apiKeysTabRoute,
  webhooksTabRoute,
  validatorsTabRoute,
  auditTabRoute,
]);
