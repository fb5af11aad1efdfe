/** Audit records: written by every command with its change, searched through the REST API. */
export { AuditQueries } from './audit-queries.js';
export { auditRoutes } from './audit-routes.js';
