/** OpenFeature Remote Evaluation Protocol (OFREP): flags evaluated from the version snapshots. */
export { FlagEvaluations } from './flag-evaluations.js';
export { ofrepRoutes } from './ofrep-routes.js';
