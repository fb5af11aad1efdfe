/** Services and their members. */
export { ServiceCommands } from './service-commands.js';
export { ServiceQueries } from './service-queries.js';
export { serviceRoutes } from './service-routes.js';
