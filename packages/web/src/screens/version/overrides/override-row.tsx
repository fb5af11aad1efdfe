import { ActionIcon, Fieldset, Group, TagsInput, TextInput } from '@mantine/core';
import type { Entry } from '@realtime-config/protocol/rest';
import { ValueEditor } from '../editors/value-editor';
import type { DraftOverride } from './override-draft';

const MASK = '••••••';

interface OverrideRowProps {
  readonly entry: Pick<Entry, 'valueType' | 'enumDefinition' | 'isSecret'>;
  readonly row: DraftOverride;
  readonly index: number;
  readonly count: number;
  readonly labelsError: string | null;
  readonly valueError: string | null | undefined;
  readonly disabled: boolean;
  readonly onChange: (row: DraftOverride) => void;
  readonly onMove: (by: -1 | 1) => void;
  readonly onRemove: () => void;
}

/** One override in the entry's details: its labels as chips, its value in the entry's own editor, move and remove. */
export function OverrideRow(props: OverrideRowProps) {
  const { entry, row, index, count, disabled, onChange } = props;
  const name = `Override ${index + 1}`;
  return (
    <Fieldset legend={name} p="sm" disabled={disabled}>
      <Group justify="flex-end" gap={4} mt={-8}>
        <ActionIcon
          variant="subtle"
          aria-label={`Move override ${index + 1} up`}
          disabled={disabled || index === 0}
          onClick={() => props.onMove(-1)}
        >
          ↑
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          aria-label={`Move override ${index + 1} down`}
          disabled={disabled || index === count - 1}
          onClick={() => props.onMove(1)}
        >
          ↓
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          color="red"
          aria-label={`Remove override ${index + 1}`}
          disabled={disabled}
          onClick={props.onRemove}
        >
          ✕
        </ActionIcon>
      </Group>
      <TagsInput
        label={`${name} labels`}
        description="key=value; Enter or a comma after each"
        placeholder={row.labels.length === 0 ? 'region=eu' : undefined}
        value={[...row.labels]}
        onChange={(labels) => onChange({ ...row, labels })}
        error={props.labelsError ?? undefined}
        disabled={disabled}
        acceptValueOnBlur
        mb="xs"
      />
      {entry.isSecret ? (
        <TextInput
          type="password"
          label={`${name} value`}
          placeholder={row.raw === undefined ? MASK : 'null'}
          value={row.raw ?? ''}
          onChange={(e) => onChange({ ...row, raw: e.currentTarget.value })}
          error={props.valueError ?? undefined}
          disabled={disabled}
          autoComplete="new-password"
        />
      ) : (
        <ValueEditor
          entry={{ key: `${name} value`, valueType: entry.valueType, enumDefinition: entry.enumDefinition }}
          value={row.raw ?? null}
          onChange={(raw) => onChange({ ...row, raw })}
          error={props.valueError}
          disabled={disabled}
        />
      )}
    </Fieldset>
  );
}
