import type { ChangeRequest } from '@realtime-config/protocol/rest';
import { RolloutSettingsDialog } from './rollouts';
import { useApplyAsRollout } from './use-change-requests';

interface ApplyRolloutDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly serviceId: string;
  readonly versionId: string;
  /** An approved change request: its approved values are what the rollout brings. */
  readonly request: ChangeRequest;
}

/**
 * `Apply as rollout…` on an approved change request: the rollout settings of the tray's `Roll out…`,
 * sent as `{ rollout }` to the request's apply, the one way a protected version's values roll out.
 * Closed once applied; a refusal (a broken rule, a stale request, an entry held by another rollout)
 * shows in the dialog.
 */
export function ApplyRolloutDialog({ request, ...props }: ApplyRolloutDialogProps) {
  const apply = useApplyAsRollout(props.serviceId, props.versionId, request.id);
  return (
    <RolloutSettingsDialog
      opened={props.opened}
      onClose={props.onClose}
      title={`Roll out “${request.title}”`}
      mutation={apply}
      rows={request.changes.map((c) => ({
        id: c.id,
        key: c.key,
        before: c.currentValue,
        after: c.rawValue,
        changedSince: c.currentGeneration !== c.generation,
        secret: c.isSecret === true || c.redacted === true,
      }))}
      onSubmit={(settings) => apply.mutate(settings, { onSuccess: props.onClose })}
    />
  );
}
