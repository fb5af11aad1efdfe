/** Entry history (from the audit log) and restore of a version to a point in time. */
export { EntryHistory, restorePlanner } from './entry-history.js';
export { historyRoutes } from './history-routes.js';
