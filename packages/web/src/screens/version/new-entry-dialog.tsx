import { Button, Checkbox, Group, NativeSelect, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { checkKey, checkValue, VALUE_TYPE_NAMES, ValueType } from '@realtime-config/protocol';
import { useId, useState } from 'react';
import { ProblemError } from '../../api/problem';
import { FormDialog } from '../../components/form-dialog';
import { useFormFields } from '../../components/use-form-fields';
import { optionalMax, orNull } from '../../rules/form-rules';
import { ValueEditor } from './editors/value-editor';
import { useCreateEntry } from './use-version';

const INITIAL = {
  key: '',
  name: '',
  valueType: String(ValueType.STRING),
  enumDefinition: '',
  description: '',
  groupName: '',
  groupDescription: '',
};
const FIELDS = [...Object.keys(INITIAL), 'rawValue'];
const TYPES = Object.entries(VALUE_TYPE_NAMES)
  .filter(([code]) => code !== String(ValueType.UNKNOWN))
  .map(([value, label]) => ({ value, label }));

/** What a value of each type looks like, shown before anything is typed (docs/value-types.md). */
const FORMATS: Partial<Record<ValueType, string>> = {
  [ValueType.STRING]: 'Any text; an empty text is a value too.',
  [ValueType.BOOLEAN]: 'On is true, off is false.',
  [ValueType.NUMBER]: 'A decimal number: 30, -2.5, 1e3.',
  [ValueType.DATE_TIME]: 'ISO 8601: 2026-05-01T09:30:00Z, or with an offset (+02:00); without one it is UTC.',
  [ValueType.TIME_SPAN]: '[-][d.]hh:mm:ss[.fffffff]: 00:05:00 is five minutes, 1.02:00:00 a day and two hours.',
  [ValueType.ENUM]: 'One of the allowed values above.',
  [ValueType.ARRAY]: 'A JSON array: ["a", "b"] or [1, 2, 5].',
  [ValueType.JSON]: 'A JSON object: {"max": 100, "currency": "EUR"}.',
};

/**
 * A new entry by hand: key, type, and the value in the editor its type has on the version page
 * (a switch, a number field, the allowed values, JSON …), checked by the type's rule as you type.
 */
export function NewEntryDialog(props: { serviceId: string; versionId: string; opened: boolean; onClose: () => void }) {
  const create = useCreateEntry(props.serviceId, props.versionId);
  const form = useFormFields(
    INITIAL,
    {
      key: (v) => {
        const problem = checkKey(v);
        return problem ? `The key ${problem}` : null;
      },
      name: optionalMax('Name', 200),
      enumDefinition: (v, all) =>
        all.valueType === String(ValueType.ENUM) && v.trim() === '' ? 'An Enum needs its allowed values' : null,
      groupName: optionalMax('Group', 200),
    },
    create.error,
  );
  // The value is typed by its editor: null (no value) until something is entered.
  const [raw, setRaw] = useState<string | null>(null);
  const [valueTouched, setValueTouched] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [secret, setSecret] = useState(false);
  const formatId = useId();
  const valueType = Number(form.values.valueType) as ValueType;
  const isEnum = valueType === ValueType.ENUM;
  const enumDefinition = isEnum ? orNull(form.values.enumDefinition) : null;
  const valueProblem = checkValue(valueType, raw, enumDefinition);
  const serverValueError = create.error instanceof ProblemError ? create.error.fieldError('rawValue') : undefined;
  const valueError =
    ((valueTouched || submitted) && valueProblem ? `The value ${valueProblem}` : null) ?? serverValueError ?? null;

  const typeField = form.input('valueType');
  const submit = () => {
    setSubmitted(true);
    if (!form.trySubmit() || valueProblem) return;
    const v = form.values;
    create.mutate(
      {
        key: v.key.trim(),
        ...(v.name.trim() ? { name: v.name.trim() } : {}),
        valueType,
        rawValue: raw,
        enumDefinition,
        description: orNull(v.description),
        groupName: orNull(v.groupName),
        groupDescription: orNull(v.groupDescription),
        ...(secret ? { isSecret: true } : {}),
      },
      { onSuccess: props.onClose },
    );
  };

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title="New entry"
      submitLabel="Create"
      size="lg"
      mutation={create}
      fields={FIELDS}
      onOpen={() => {
        form.reset();
        setRaw(null);
        setSecret(false);
        setValueTouched(false);
        setSubmitted(false);
      }}
      onSubmit={submit}
    >
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <TextInput label="Key" placeholder="Payments:TimeoutSeconds" required data-autofocus {...form.input('key')} />
        <NativeSelect
          label="Value type"
          data={TYPES}
          {...typeField}
          onChange={(event) => {
            typeField.onChange(event);
            // A value of another type rarely fits the new one: start again from no value.
            setRaw(null);
            setValueTouched(false);
          }}
        />
      </SimpleGrid>
      {isEnum && (
        <TextInput
          label="Allowed values"
          description="Separated by | or ,"
          placeholder="Live|Test"
          {...form.input('enumDefinition')}
        />
      )}
      <Stack gap={4}>
        <Text component="div" size="sm" fw={500}>
          Value
        </Text>
        <Text id={formatId} size="xs" c="dimmed">
          {FORMATS[valueType] ?? 'Any text.'} Leave it empty for no value (null): applications then read their default.
        </Text>
        <div onBlur={() => setValueTouched(true)}>
          <ValueEditor
            key={valueType}
            entry={{ key: 'Value', valueType, enumDefinition }}
            value={raw}
            onChange={(next) => {
              setRaw(next);
              setValueTouched(true);
            }}
            error={valueError}
            describedBy={formatId}
          />
        </div>
        {raw !== null && (
          <Group>
            <Button size="compact-xs" variant="subtle" onClick={() => setRaw(null)}>
              Set null
            </Button>
          </Group>
        )}
      </Stack>
      <Checkbox
        label="Secret"
        description="Encrypted at rest, never shown again (only revealed, audited), and sent only to applications allowed to read secrets"
        checked={secret}
        onChange={(e) => setSecret(e.currentTarget.checked)}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <TextInput label="Display name" description="Defaults to the key" {...form.input('name')} />
        <TextInput label="Group" {...form.input('groupName')} />
      </SimpleGrid>
      <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
      <Textarea label="Group description" autosize minRows={1} {...form.input('groupDescription')} />
    </FormDialog>
  );
}
