import { NativeSelect, SimpleGrid, Textarea, TextInput } from '@mantine/core';
import { checkKey, checkValue, VALUE_TYPE_NAMES, ValueType } from '@realtime-config/protocol';
import { FormDialog } from '../../components/form-dialog';
import { useFormFields } from '../../components/use-form-fields';
import { optionalMax, orNull } from '../../rules/form-rules';
import { useCreateEntry } from './use-version';

const INITIAL = {
  key: '',
  name: '',
  valueType: String(ValueType.STRING),
  enumDefinition: '',
  rawValue: '',
  description: '',
  groupName: '',
  groupDescription: '',
};
const FIELDS = Object.keys(INITIAL);
const TYPES = Object.entries(VALUE_TYPE_NAMES)
  .filter(([code]) => code !== String(ValueType.UNKNOWN))
  .map(([value, label]) => ({ value, label }));

/** A new entry by hand: key, type, value (checked by the type's rule as you type) and metadata. */
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
      rawValue: (v, all) => {
        const problem = checkValue(Number(all.valueType), v === '' ? null : v, all.enumDefinition || null);
        return problem ? `The value ${problem}` : null;
      },
      groupName: optionalMax('Group', 200),
    },
    create.error,
  );
  const isEnum = form.values.valueType === String(ValueType.ENUM);

  const submit = () => {
    if (!form.trySubmit()) return;
    const v = form.values;
    create.mutate(
      {
        key: v.key.trim(),
        ...(v.name.trim() ? { name: v.name.trim() } : {}),
        valueType: Number(v.valueType),
        rawValue: v.rawValue === '' ? null : v.rawValue,
        enumDefinition: isEnum ? orNull(v.enumDefinition) : null,
        description: orNull(v.description),
        groupName: orNull(v.groupName),
        groupDescription: orNull(v.groupDescription),
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
      onOpen={() => form.reset()}
      onSubmit={submit}
    >
      <SimpleGrid cols={2}>
        <TextInput label="Key" placeholder="Payments:TimeoutSeconds" required data-autofocus {...form.input('key')} />
        <NativeSelect label="Value type" data={TYPES} {...form.input('valueType')} />
      </SimpleGrid>
      {isEnum && (
        <TextInput
          label="Allowed values"
          description="Separated by | or ,"
          placeholder="Live|Test"
          {...form.input('enumDefinition')}
        />
      )}
      <TextInput label="Value" description="Empty means null" ff="monospace" {...form.input('rawValue')} />
      <SimpleGrid cols={2}>
        <TextInput label="Display name" description="Defaults to the key" {...form.input('name')} />
        <TextInput label="Group" {...form.input('groupName')} />
      </SimpleGrid>
      <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
      <Textarea label="Group description" autosize minRows={1} {...form.input('groupDescription')} />
    </FormDialog>
  );
}
