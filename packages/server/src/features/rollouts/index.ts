/** Rollouts (docs/rollouts.md): new values given to a growing share of a version's instances. */
export { RolloutCommands, SCHEDULER, type RolloutAction } from './rollout-commands.js';
export { type RolloutInput } from './rollout-input.js';
export { rolloutRoutes, RolloutSettings } from './rollout-routes.js';
export { RolloutScheduler } from './rollout-scheduler.js';
export { rolloutView, type RolloutView } from './rollout-view.js';
