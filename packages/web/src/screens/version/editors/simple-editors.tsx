import { Group, NativeSelect, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { enumValues } from '@realtime-config/protocol';
import type { EditorProps } from './editor-props';
import { useExtraDescription } from './use-extra-description';
import { booleanOf, describeDateTime, describeTimeSpan, rawOrNull } from './value-format';

const NULL_OPTION = '\u0000null';

// The real checkbox lies over the drawn track, so a click (by a person or a test driver) lands on it.
const SWITCH_STYLES = {
  body: { position: 'relative' as const },
  input: {
    position: 'absolute' as const,
    inset: 0,
    width: '100%',
    height: '100%',
    margin: 0,
    opacity: 0,
    zIndex: 1,
    cursor: 'pointer',
  },
};

/** Boolean: a switch; null shows as off with the word null beside it. */
export function BooleanEditor({ entry, value, onChange, error, disabled, describedBy }: EditorProps) {
  const ref = useExtraDescription<HTMLInputElement>(describedBy);
  const checked = booleanOf(value);
  return (
    <Group gap="sm">
      <Switch
        aria-label={entry.key}
        ref={ref}
        checked={checked === true}
        onChange={(e) => onChange(e.currentTarget.checked ? 'true' : 'false')}
        disabled={disabled}
        error={error ?? undefined}
        styles={SWITCH_STYLES}
      />
      <Text size="sm" c={checked === null ? 'dimmed' : undefined} aria-hidden="true">
        {checked === null ? (value === null ? 'null' : value) : String(checked)}
      </Text>
    </Group>
  );
}

/** Enum: a select of the allowed values, plus null. */
export function EnumEditor({ entry, value, onChange, error, disabled, describedBy }: EditorProps) {
  const ref = useExtraDescription<HTMLSelectElement>(describedBy);
  const allowed = enumValues(entry.enumDefinition);
  const options = [{ value: NULL_OPTION, label: 'null (not set)' }, ...allowed.map((v) => ({ value: v, label: v }))];
  if (value !== null && !allowed.includes(value)) options.push({ value, label: `${value} (not allowed)` });
  return (
    <NativeSelect
      aria-label={entry.key}
      ref={ref}
      data={options}
      value={value ?? NULL_OPTION}
      onChange={(e) => onChange(e.currentTarget.value === NULL_OPTION ? null : e.currentTarget.value)}
      error={error ?? undefined}
      disabled={disabled}
    />
  );
}

/** Number: a number field; clearing it sets null. */
export function NumberEditor({ entry, value, onChange, error, disabled, describedBy }: EditorProps) {
  const ref = useExtraDescription<HTMLInputElement>(describedBy);
  return (
    <TextInput
      type="number"
      step="any"
      aria-label={entry.key}
      ref={ref}
      placeholder="null"
      value={value ?? ''}
      onChange={(e) => onChange(rawOrNull(e.currentTarget.value))}
      error={error ?? undefined}
      disabled={disabled}
    />
  );
}

/** A one-line field for a typed text value, with the value read back below it; clearing it sets null. */
function DescribedTextEditor(
  props: EditorProps & { readonly placeholder: string; readonly describe: (raw: string | null) => string | null },
) {
  const { entry, value, onChange, error, disabled, describedBy } = props;
  const ref = useExtraDescription<HTMLInputElement>(describedBy);
  const described = error ? null : props.describe(value);
  return (
    <TextInput
      aria-label={entry.key}
      ref={ref}
      placeholder={props.placeholder}
      value={value ?? ''}
      onChange={(e) => onChange(rawOrNull(e.currentTarget.value))}
      description={described ?? undefined}
      inputWrapperOrder={['input', 'description', 'error']}
      error={error ?? undefined}
      disabled={disabled}
      ff="monospace"
    />
  );
}

/** DateTime: ISO 8601 text, shown back in the user's time zone. */
export function DateTimeEditor(props: EditorProps) {
  return <DescribedTextEditor {...props} placeholder="2026-05-01T09:30:00Z (null)" describe={describeDateTime} />;
}

/** TimeSpan: `[-][d.]HH:mm:ss[.fffffff]`, shown back in words. */
export function TimeSpanEditor(props: EditorProps) {
  return <DescribedTextEditor {...props} placeholder="00:05:00 (null)" describe={describeTimeSpan} />;
}

/** String and Unknown: any text, several lines allowed; the empty string is a value, not null. */
export function TextEditor({ entry, value, onChange, error, disabled, describedBy }: EditorProps) {
  const ref = useExtraDescription<HTMLTextAreaElement>(describedBy);
  return (
    <Textarea
      aria-label={entry.key}
      ref={ref}
      placeholder={value === null ? 'null' : ''}
      autosize
      minRows={1}
      maxRows={6}
      value={value ?? ''}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error ?? undefined}
      disabled={disabled}
    />
  );
}
