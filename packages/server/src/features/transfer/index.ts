/** Compare versions; export and import configuration as json, yaml or env files; promote between versions. */
export { ConfigTransfer } from './config-transfer.js';
export { transferRoutes } from './transfer-routes.js';
export { VersionCompare } from './version-compare.js';
export { createYamlWorkers, type YamlWorkers } from './yaml-workers.js';
