/** Config versions, and their registration by client SDKs (CreateVersion). */
export { VersionCommands } from './version-commands.js';
export { VersionQueries } from './version-queries.js';
export { MAX_DECLARED_ENTRIES, VersionRegistration } from './version-registration.js';
export { versionOf, versionRoutes } from './version-routes.js';
