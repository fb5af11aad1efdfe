import { Badge, Button, Code, Group, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { Rollout } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { count } from '../../../components/plain-words';
import { ProblemAlert } from '../../../components/problem-alert';
import { TimeText } from '../../../components/time-text';
import { ChangeDiff } from '../change-diff';
import { durationWords } from './rollout-settings';
import { percentText, rolloutKeys, STATUS_COLORS, STATUS_WORDS } from './rollout-words';
import { isActive, useRolloutAction, type RolloutAction } from './use-rollouts';

interface RolloutCardProps {
  readonly serviceId: string;
  readonly versionId: string;
  readonly rollout: Rollout;
  /** Editors and owners pause, resume, promote and roll back. */
  readonly mayAct: boolean;
}

/** Where the rollout stands in time: when it starts, steps on, bakes until, or that it waits. */
function Timing({ rollout }: { rollout: Rollout }) {
  const next = rollout.steps[rollout.step + 1];
  switch (rollout.status) {
    case 'scheduled':
      return (
        <>
          Starts <TimeText iso={rollout.nextAt ?? rollout.startAt} />.
        </>
      );
    case 'running':
      return (
        <>
          Next step ({next} %) <TimeText iso={rollout.nextAt} />.
        </>
      );
    case 'baking':
      return (
        <>
          Baking at 100 % until <TimeText iso={rollout.nextAt} />, then the new values become the values.
        </>
      );
    case 'paused':
      return <>Paused: no step is taken until it is resumed, and Resume times the current step again from then.</>;
    case 'completed':
      return <>Completed: the new values are the values.</>;
    case 'rolled_back':
      return <>Rolled back: every instance that got the new values has the old ones again.</>;
  }
}

/** The steps in order, the current one marked (`aria-current`), with the share of instances in now. */
function Steps({ rollout }: { rollout: Rollout }) {
  const started = rollout.stepStartedAt !== null;
  return (
    <Stack gap={4}>
      <Progress value={rollout.percent} aria-label="Share of instances with the new values" size="lg" />
      <Group gap="xs" align="baseline">
        <Text size="sm" fw={600}>
          {rollout.percent} % of the matching instances
        </Text>
        <ol aria-label="Steps" className="rc-steps">
          {rollout.steps.map((percent, i) => {
            const current = started && i === rollout.step;
            return (
              <li key={percent} aria-current={current ? 'step' : undefined}>
                {percent} %{current ? ' (now)' : ''}
              </li>
            );
          })}
        </ol>
      </Group>
    </Stack>
  );
}

const CONFIRM: Record<'promote' | 'rollback', { title: string; label: string; text: string }> = {
  promote: {
    title: 'Promote this rollout?',
    label: 'Promote',
    text: 'Every instance gets the new values now and they become the values: the remaining steps and the bake time are skipped.',
  },
  rollback: {
    title: 'Roll back this rollout?',
    label: 'Roll back',
    text: 'Every instance that got the new values gets the old ones back, and the rollout ends.',
  },
};

/**
 * One rollout: its status, its progress over the steps, what comes next, what it changes (a
 * secret's value never shown), how many instances got the new values and how many of them left, why
 * it ended, and the actions its status allows.
 */
export function RolloutCard({ serviceId, versionId, rollout, mayAct }: RolloutCardProps) {
  const action = useRolloutAction(serviceId, versionId, rollout.id);
  const [confirming, setConfirming] = useState<'promote' | 'rollback' | null>(null);
  const active = isActive(rollout);
  const headingId = `rollout-${rollout.id}`;
  const labels = Object.entries(rollout.match.labels);
  const run = (a: RolloutAction) => action.mutate(a, { onSuccess: () => setConfirming(null) });
  const button = (a: RolloutAction, label: string, onClick = () => run(a)) => (
    <Button
      size="xs"
      variant="default"
      color={a === 'rollback' ? 'red' : undefined}
      loading={action.isPending && action.variables === a && confirming === null}
      disabled={action.isPending}
      onClick={onClick}
    >
      {label}
    </Button>
  );

  return (
    <Paper component="article" aria-labelledby={headingId} withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start" gap="xs">
          <Stack gap={2}>
            <Group gap="xs">
              <Title order={3} size="h4" id={headingId}>
                Rollout of {rolloutKeys(rollout)}
              </Title>
              <Badge color={STATUS_COLORS[rollout.status]} variant="dot">
                {STATUS_WORDS[rollout.status]}
              </Badge>
            </Group>
            <Text size="sm" c="dimmed">
              by {rollout.createdBy}, <TimeText iso={rollout.createdAt} /> · steps every{' '}
              {durationWords(rollout.stepSeconds)}
              {rollout.bakeSeconds > 0 ? `, bakes ${durationWords(rollout.bakeSeconds)} at 100 %` : ', no bake time'}
            </Text>
          </Stack>
          {mayAct && active && (
            <Group gap="xs">
              {rollout.status === 'paused' ? button('resume', 'Resume') : button('pause', 'Pause')}
              {button('promote', 'Promote…', () => setConfirming('promote'))}
              {button('rollback', 'Roll back…', () => setConfirming('rollback'))}
            </Group>
          )}
        </Group>
        {active && <Steps rollout={rollout} />}
        <Text size="sm">
          <Timing rollout={rollout} />
        </Text>
        {rollout.reason && <Text size="sm">Reason: {rollout.reason}</Text>}
        <Text size="sm">
          {count(rollout.received, 'instance')} received the new values; {rollout.gone} of them{' '}
          {rollout.gone === 1 ? 'is' : 'are'} disconnected now.
          {active &&
            ` It rolls back by itself when ${percentText(rollout.rollback.disconnectedShare)} of them (and at least 2) disconnect and stay away.`}
        </Text>
        <Text size="sm">
          {labels.length === 0 ? (
            'For every instance.'
          ) : (
            <>
              Only for instances with{' '}
              {labels.map(([k, v]) => (
                <Code key={k} mr={4}>
                  {k}={v}
                </Code>
              ))}
            </>
          )}
        </Text>
        {action.isError && confirming === null && <ProblemAlert error={action.error} />}
        <ChangeDiff
          label={`New values of the rollout of ${rolloutKeys(rollout)}`}
          afterOnly
          afterLabel="New value"
          rows={rollout.changes.map((c) => ({
            id: c.id,
            key: c.key,
            before: undefined,
            after: c.rawValue,
            secret: c.isSecret === true,
          }))}
        />
      </Stack>
      {confirming && (
        <ConfirmDialog
          opened
          onClose={() => {
            setConfirming(null);
            action.reset();
          }}
          title={CONFIRM[confirming].title}
          confirmLabel={CONFIRM[confirming].label}
          pending={action.isPending}
          error={action.error}
          onConfirm={() => run(confirming)}
        >
          {CONFIRM[confirming].text}
        </ConfirmDialog>
      )}
    </Paper>
  );
}
