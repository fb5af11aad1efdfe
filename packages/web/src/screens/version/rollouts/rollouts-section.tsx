import { Loader, Stack, Text, Title } from '@mantine/core';
import type { Rollout } from '@realtime-config/protocol/rest';
import { ProblemAlert } from '../../../components/problem-alert';
import { RolloutCard } from './rollout-card';
import { isActive } from './use-rollouts';

/** How many ended rollouts stay in view below the active ones. */
const RECENT_ENDED = 3;
const HEADING_ID = 'rollouts-heading';

interface RolloutsSectionProps {
  readonly serviceId: string;
  readonly versionId: string;
  /** The version's rollouts query (useRollouts, which the version page holds for its entries too). */
  readonly rollouts: { readonly data?: readonly Rollout[]; readonly isPending: boolean; readonly error: unknown };
  readonly mayAct: boolean;
}

/**
 * The version's rollouts (docs/rollouts.md): the active ones and the few that ended last, each with
 * its progress and actions. Shown once the version has had one; read again every 2 seconds while one
 * is active.
 */
export function RolloutsSection({ serviceId, versionId, rollouts, mayAct }: RolloutsSectionProps) {
  const list = rollouts.data ?? [];
  if (!rollouts.isPending && rollouts.error == null && list.length === 0) return null;
  const active = list.filter(isActive);
  const ended = list.filter((r) => !isActive(r)).slice(0, RECENT_ENDED);
  return (
    <Stack component="section" aria-labelledby={HEADING_ID} gap="sm">
      <Title order={2} size="h3" id={HEADING_ID}>
        Rollouts
      </Title>
      {rollouts.isPending && <Loader size="sm" aria-label="Loading rollouts" />}
      {rollouts.error != null && <ProblemAlert error={rollouts.error} />}
      {rollouts.data && active.length === 0 && (
        <Text size="sm" c="dimmed">
          No rollout is running. Edit values, then choose Roll out… in the pending changes to start one.
        </Text>
      )}
      {[...active, ...ended].map((rollout) => (
        <RolloutCard key={rollout.id} serviceId={serviceId} versionId={versionId} rollout={rollout} mayAct={mayAct} />
      ))}
    </Stack>
  );
}
