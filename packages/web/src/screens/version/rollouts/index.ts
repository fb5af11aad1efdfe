/**
 * Rollouts in the console (docs/rollouts.md): `Roll out…` from the pending tray, the settings form it
 * shares with a change request's `Apply as rollout…`, and the version's Rollouts.
 */
export { RolloutDialog } from './rollout-dialog';
export { RolloutSettingsDialog } from './rollout-settings-dialog';
export { RolloutsSection } from './rollouts-section';
export { isActive, useRollouts } from './use-rollouts';
