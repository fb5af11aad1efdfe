/** Change requests: reviewed value changes of a version, the only way to change a protected one. */
export { ChangeRequestCommands, MAX_REQUESTED_CHANGES } from './change-request-commands.js';
export { ChangeRequestQueries } from './change-request-queries.js';
export { changeRequestRoutes } from './change-request-routes.js';
