/** Rollouts in the console (docs/rollouts.md): `Roll out…` from the pending tray, and the version's Rollouts. */
export { RolloutDialog } from './rollout-dialog';
export { RolloutsSection } from './rollouts-section';
export { isActive, useRollouts } from './use-rollouts';
