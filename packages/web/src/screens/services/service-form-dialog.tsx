import { Textarea, TextInput } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import type { Service, ServiceFields } from '@realtime-config/protocol/rest';
import { FormDialog } from '../../components/form-dialog';
import { useFormFields } from '../../components/use-form-fields';
import { orNull, serviceRules } from '../../rules/form-rules';

interface ServiceFormDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly title: string;
  readonly submitLabel: string;
  readonly initial?: Service;
  readonly mutation: UseMutationResult<Service, Error, ServiceFields>;
  readonly onSaved: (service: Service) => void;
}

const FIELDS = ['name', 'description', 'repositoryUrl', 'contactEmail'];

function valuesOf(service?: Service) {
  return {
    name: service?.name ?? '',
    description: service?.description ?? '',
    repositoryUrl: service?.repositoryUrl ?? '',
    contactEmail: service?.contactEmail ?? '',
  };
}

/** The New service and Edit service dialog: the server's field rules as you type, its answer on the fields. */
export function ServiceFormDialog(props: ServiceFormDialogProps) {
  const { initial, mutation } = props;
  const form = useFormFields(valuesOf(initial), serviceRules, mutation.error);
  const submit = () => {
    if (!form.trySubmit()) return;
    const v = form.values;
    mutation.mutate(
      {
        name: v.name.trim(),
        description: orNull(v.description),
        repositoryUrl: orNull(v.repositoryUrl),
        contactEmail: orNull(v.contactEmail),
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
      fields={FIELDS}
      onOpen={() => form.reset(valuesOf(initial))}
      onSubmit={submit}
    >
      <TextInput label="Name" required data-autofocus {...form.input('name')} />
      <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
      <TextInput
        label="Repository URL"
        placeholder="https://git.example.com/team/orders"
        {...form.input('repositoryUrl')}
      />
      <TextInput label="Contact e-mail" placeholder="team@example.com" {...form.input('contactEmail')} />
    </FormDialog>
  );
}
