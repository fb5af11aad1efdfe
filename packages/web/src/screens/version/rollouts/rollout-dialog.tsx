import type { Entry, Rollout } from '@realtime-config/protocol/rest';
import type { PendingChange } from '../pending-changes';
import { RolloutSettingsDialog } from './rollout-settings-dialog';
import { useCreateRollout } from './use-rollouts';

interface RolloutDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly serviceId: string;
  readonly versionId: string;
  /** The tray's changes: each new value with the generation it was edited from. */
  readonly changes: readonly PendingChange[];
  readonly entriesById: ReadonlyMap<string, Entry>;
  readonly onStarted: (rollout: Rollout) => void;
}

/** `Roll out…` from the tray: the pending values, each with its generation, started as a rollout. */
export function RolloutDialog(props: RolloutDialogProps) {
  const create = useCreateRollout(props.serviceId, props.versionId);
  const n = props.changes.length;
  return (
    <RolloutSettingsDialog
      opened={props.opened}
      onClose={props.onClose}
      title={n === 1 ? 'Roll out 1 change' : `Roll out ${n} changes`}
      mutation={create}
      rows={props.changes.map((c) => ({
        id: c.entryId,
        key: c.key,
        before: c.baseRaw,
        after: c.raw,
        secret: props.entriesById.get(c.entryId)?.isSecret === true,
      }))}
      onSubmit={(settings) => {
        const changes = props.changes.map((c) => ({ id: c.entryId, rawValue: c.raw, generation: c.baseGeneration }));
        create.mutate({ changes, ...settings }, { onSuccess: props.onStarted });
      }}
    />
  );
}
