import { Group, Radio, SimpleGrid, TagsInput, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { RolloutSettings } from '@realtime-config/protocol/rest';
import { FormDialog } from '../../../components/form-dialog';
import { useFormFields } from '../../../components/use-form-fields';
import { ChangeDiff, type DiffRow } from '../change-diff';
import { labelChipsProblem } from '../overrides';
import {
  DEFAULT_ROLLOUT,
  durationWords,
  parseDuration,
  ROLLOUT_FIELDS,
  rolloutRules,
  rolloutSettings,
  type RolloutForm,
} from './rollout-settings';

interface RolloutSettingsDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  /** The dialog's name: `Roll out 2 changes`, `Roll out “Longer timeout”`. */
  readonly title: string;
  /** The request the settings go out with: its pending state, and its problem shown in the dialog. */
  readonly mutation: { readonly isPending: boolean; readonly error: unknown; reset(): void };
  /** The values rolled out, before and after. */
  readonly rows: readonly DiffRow[];
  /** Called with settings that pass every rule; the caller sends them with its values. */
  readonly onSubmit: (settings: RolloutSettings) => void;
}

/** "1 min" under a duration field once it reads as one. */
function inWords(text: string, fallback: string): string {
  const seconds = parseDuration(text);
  return seconds === undefined ? fallback : `${fallback} Now: ${seconds === 0 ? 'none' : durationWords(seconds)}.`;
}

/**
 * The settings of a rollout (docs/rollouts.md): values reach a growing share of the instances step by
 * step instead of all at once. Steps, their time, the bake time at 100 %, the start, the labels an
 * instance must have, and the share of disconnects that rolls back by itself. One form for the
 * tray's `Roll out…` and a change request's `Apply as rollout…`: each sends the settings its own way.
 */
export function RolloutSettingsDialog(props: RolloutSettingsDialogProps) {
  const form = useFormFields<RolloutForm>(DEFAULT_ROLLOUT, rolloutRules, props.mutation.error);
  const [labels, setLabels] = useState<string[]>([]);
  const [tried, setTried] = useState(false);
  const labelsError = labelChipsProblem(labels);
  const start = form.input('start');

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title={props.title}
      submitLabel="Start rollout"
      size="lg"
      mutation={props.mutation}
      fields={ROLLOUT_FIELDS}
      onOpen={() => {
        form.reset(DEFAULT_ROLLOUT);
        setLabels([]);
        setTried(false);
      }}
      onSubmit={() => {
        setTried(true);
        if (!form.trySubmit() || labelsError) return;
        props.onSubmit(rolloutSettings(form.values, labels));
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
      <ChangeDiff label="Changes to roll out" rows={props.rows} />
    </FormDialog>
  );
}
