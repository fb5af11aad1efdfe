import { Group, Radio, SimpleGrid, TagsInput, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { Entry, Rollout } from '@realtime-config/protocol/rest';
import { FormDialog } from '../../../components/form-dialog';
import { useFormFields } from '../../../components/use-form-fields';
import { ChangeDiff } from '../change-diff';
import { labelChipsProblem } from '../overrides';
import type { PendingChange } from '../pending-changes';
import {
  DEFAULT_ROLLOUT,
  durationWords,
  parseDuration,
  ROLLOUT_FIELDS,
  rolloutBody,
  rolloutRules,
  type RolloutForm,
} from './rollout-settings';
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

/** "1 min" under a duration field once it reads as one. */
function inWords(text: string, fallback: string): string {
  const seconds = parseDuration(text);
  return seconds === undefined ? fallback : `${fallback} Now: ${seconds === 0 ? 'none' : durationWords(seconds)}.`;
}

/**
 * `Roll out…`: the tray's values reach a growing share of the instances step by step (docs/rollouts.md)
 * instead of all at once. Steps, their time, the bake time at 100 %, the start, the labels an
 * instance must have, and the share of disconnects that rolls back by itself.
 */
export function RolloutDialog(props: RolloutDialogProps) {
  const create = useCreateRollout(props.serviceId, props.versionId);
  const form = useFormFields<RolloutForm>(DEFAULT_ROLLOUT, rolloutRules, create.error);
  const [labels, setLabels] = useState<string[]>([]);
  const [tried, setTried] = useState(false);
  const labelsError = labelChipsProblem(labels);
  const n = props.changes.length;
  const start = form.input('start');

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title={n === 1 ? 'Roll out 1 change' : `Roll out ${n} changes`}
      submitLabel="Start rollout"
      size="lg"
      mutation={create}
      fields={ROLLOUT_FIELDS}
      onOpen={() => {
        form.reset(DEFAULT_ROLLOUT);
        setLabels([]);
        setTried(false);
      }}
      onSubmit={() => {
        setTried(true);
        if (!form.trySubmit() || labelsError) return;
        const changes = props.changes.map((c) => ({ id: c.entryId, rawValue: c.raw, generation: c.baseGeneration }));
        create.mutate(rolloutBody(form.values, labels, changes), { onSuccess: props.onStarted });
      }}
    >
      <Text size="sm">
        The new values reach a growing share of the instances, step by step; after the last step and the bake time they
        become the values. Until then these entries change only through the rollout: pause, promote or roll it back
        under Rollouts.
      </Text>
      <TextInput
        label="Steps"
        description="Percentages of the instances, each above the one before, ending at 100."
        data-autofocus
        {...form.input('steps')}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <TextInput
          label="Step time"
          description={inWords(form.values.stepSeconds, 'Between steps: seconds, or 90s, 5m, 2h.')}
          {...form.input('stepSeconds')}
        />
        <TextInput
          label="Bake time"
          description={inWords(form.values.bakeSeconds, 'At 100 % before the values are replaced; 0 for none.')}
          {...form.input('bakeSeconds')}
        />
      </SimpleGrid>
      <Radio.Group
        label="Start"
        value={form.values.start}
        onChange={(value) => start.onChange({ currentTarget: { value } })}
      >
        <Group mt={4}>
          <Radio value="now" label="Now" />
          <Radio value="at" label="At a time" />
        </Group>
      </Radio.Group>
      {form.values.start === 'at' && (
        <TextInput
          label="Start at"
          description="Your local time, at most 90 days ahead."
          type="datetime-local"
          maw={320}
          {...form.input('startAt')}
        />
      )}
      <TagsInput
        label="Labels to match"
        description="Only instances with all these labels (key=value; Enter or a comma after each). Empty: every instance."
        placeholder={labels.length === 0 ? 'region=eu' : undefined}
        value={labels}
        onChange={setLabels}
        error={(tried || labels.length > 0) && labelsError ? labelsError : undefined}
        acceptValueOnBlur
      />
      <TextInput
        label="Rollback share"
        description="Roll back by itself when this share (and at least 2) of the instances that got the new values disconnect and stay away."
        rightSection="%"
        inputMode="decimal"
        maw={320}
        {...form.input('disconnectedShare')}
      />
      <ChangeDiff
        label="Changes to roll out"
        rows={props.changes.map((c) => ({
          id: c.entryId,
          key: c.key,
          before: c.baseRaw,
          after: c.raw,
          secret: props.entriesById.get(c.entryId)?.isSecret === true,
        }))}
      />
    </FormDialog>
  );
}
