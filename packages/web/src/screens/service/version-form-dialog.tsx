import { NativeSelect, Textarea, TextInput } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import type { Version, VersionFields } from '@realtime-config/protocol/rest';
import { FormDialog } from '../../components/form-dialog';
import { useFormFields } from '../../components/use-form-fields';
import { orNull, versionRules } from '../../rules/form-rules';

interface VersionFormDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly title: string;
  readonly submitLabel: string;
  readonly initial?: Version;
  readonly mutation: UseMutationResult<Version, Error, VersionFields>;
  readonly onSaved: (version: Version) => void;
  /** A new version may start as a copy of one of these (its entries, values and details). */
  readonly startFrom?: readonly Version[];
}

/** New version (empty, or a copy of another) / Edit version: label and description. */
export function VersionFormDialog(props: VersionFormDialogProps) {
  const { initial, mutation, startFrom } = props;
  const initialValues = {
    versionLabel: initial?.versionLabel ?? '',
    description: initial?.description ?? '',
    copyFrom: '',
  };
  const form = useFormFields(initialValues, versionRules, mutation.error);
  const submit = () => {
    if (!form.trySubmit()) return;
    mutation.mutate(
      {
        versionLabel: form.values.versionLabel.trim(),
        description: orNull(form.values.description),
        ...(form.values.copyFrom ? { copyFrom: form.values.copyFrom } : {}),
      },
      { onSuccess: props.onSaved },
    );
  };

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title={props.title}
      submitLabel={props.submitLabel}
      mutation={mutation}
      fields={['versionLabel', 'description', 'copyFrom']}
      onOpen={() => form.reset(initialValues)}
      onSubmit={submit}
    >
      <TextInput label="Version label" placeholder="1.0.0" required data-autofocus {...form.input('versionLabel')} />
      <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
      {startFrom && startFrom.length > 0 && (
        <NativeSelect
          label="Start from"
          description="A copy starts with every entry of that version, values and details included."
          data={[
            { value: '', label: 'Empty: no entries' },
            ...startFrom.map((v) => ({ value: v.id, label: `A copy of ${v.versionLabel}` })),
          ]}
          {...form.input('copyFrom')}
        />
      )}
    </FormDialog>
  );
}
