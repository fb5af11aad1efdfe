import { Textarea, TextInput } from '@mantine/core';
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
}

/** New version / Edit version: label and description. */
export function VersionFormDialog(props: VersionFormDialogProps) {
  const { initial, mutation } = props;
  const initialValues = { versionLabel: initial?.versionLabel ?? '', description: initial?.description ?? '' };
  const form = useFormFields(initialValues, versionRules, mutation.error);
  const submit = () => {
    if (!form.trySubmit()) return;
    mutation.mutate(
      { versionLabel: form.values.versionLabel.trim(), description: orNull(form.values.description) },
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
      fields={['versionLabel', 'description']}
      onOpen={() => form.reset(initialValues)}
      onSubmit={submit}
    >
      <TextInput label="Version label" placeholder="1.0.0" required data-autofocus {...form.input('versionLabel')} />
      <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
    </FormDialog>
  );
}
