/** Health, readiness and Prometheus metrics. */
export { createMetrics, type Metrics } from './metrics.js';
export { opsRoutes } from './ops-routes.js';
