import { Badge, Button, Code, Group, Loader, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { CreatedValidator, Validator } from '@realtime-config/protocol/rest';
import { asProblem } from '../../api/problem';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { FormDialog } from '../../components/form-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { ShownOnceDialog } from '../../components/shown-once-dialog';
import { TimeText } from '../../components/time-text';
import { useFormFields } from '../../components/use-form-fields';
import { orNull, validatorRules } from '../../rules/form-rules';
import { validatorsTabRoute } from './route';
import { useChangeValidator, useCreateValidator, useDeleteValidator, useValidators } from './use-validators';

const EMPTY = { url: '', description: '' };

function NewValidatorDialog(props: {
  serviceId: string;
  opened: boolean;
  onClose: () => void;
  onCreated: (created: CreatedValidator) => void;
}) {
  const create = useCreateValidator(props.serviceId);
  const form = useFormFields(EMPTY, validatorRules, create.error);
  const submit = () => {
    if (!form.trySubmit()) return;
    create.mutate(
      { url: form.values.url.trim(), description: orNull(form.values.description) },
      { onSuccess: props.onCreated },
    );
  };
  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title="New validator"
      submitLabel="Create validator"
      mutation={create}
      fields={['url', 'description']}
      onOpen={() => form.reset(EMPTY)}
      onSubmit={submit}
    >
      <TextInput
        label="URL"
        placeholder="https://ci.example.com/realtime-config/validate"
        description="Every change of this service's values is posted here, signed, before it is saved; an answer other than 2xx refuses it."
        required
        data-autofocus
        {...form.input('url')}
      />
      <TextInput label="Description" placeholder="CI gate" {...form.input('description')} />
    </FormDialog>
  );
}

function SecretDialog({ created, onClose }: { created: CreatedValidator | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      value={created?.secret ?? null}
      title="Validator created"
      valueLabel="Validator secret"
      copyLabel="Copy secret"
      alertTitle="Copy the secret now"
      alertColor="blue"
      onClose={onClose}
    >
      This is the only time the signing secret is shown. Your validator verifies each request with it.
    </ShownOnceDialog>
  );
}

/** What an owner is asked to confirm: removing a validator, or letting writes past it. */
type Pending = { readonly action: 'delete' | 'disable'; readonly validator: Validator };

/** Validators of the service: list, `New validator` (the secret shown once), enable or disable, delete. */
export function ValidatorsTab() {
  const { serviceId } = validatorsTabRoute.useParams();
  const validators = useValidators(serviceId);
  const remove = useDeleteValidator(serviceId);
  const change = useChangeValidator(serviceId);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedValidator | null>(null);
  const [confirming, setConfirming] = useState<Pending | null>(null);

  if (validators.isError && asProblem(validators.error).status === 403) {
    return <Text>Only owners of this service and admins see and manage its validators.</Text>;
  }
  const enable = (validator: Validator) => change.mutate({ validatorId: validator.id, change: { enabled: true } });
  const close = () => {
    setConfirming(null);
    remove.reset();
    change.reset();
  };
  const confirm = () => {
    if (!confirming) return;
    const { action, validator } = confirming;
    if (action === 'delete') remove.mutate(validator.id, { onSuccess: close });
    else change.mutate({ validatorId: validator.id, change: { enabled: false } }, { onSuccess: close });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          Before a change of this service&apos;s values is saved, every enabled validator is asked; if one does not
          answer 2xx, nothing is saved and its answer is shown.
        </Text>
        <Button onClick={() => setCreating(true)}>New validator</Button>
      </Group>
      {validators.isPending && <Loader aria-label="Loading validators" />}
      {validators.isError && <ProblemAlert error={validators.error} />}
      {change.isError && !confirming && <ProblemAlert error={change.error} />}
      {validators.data?.length === 0 && (
        <EmptyState title="No validators yet">
          Add one to let a CI gate or a policy check approve each change before it goes live.
        </EmptyState>
      )}
      {validators.data && validators.data.length > 0 && (
        <Table striped aria-label="Validators" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>URL</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {validators.data.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>
                  <Code>{v.url}</Code>
                  {v.description && <Text size="sm">{v.description}</Text>}
                </Table.Td>
                <Table.Td data-label="Created">
                  <TimeText iso={v.createdAt} />
                </Table.Td>
                <Table.Td>
                  <Badge variant="dot" color={v.enabled ? 'green' : 'gray'}>
                    {v.enabled ? 'Enabled' : 'Disabled'}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    {v.enabled ? (
                      <Button
                        size="xs"
                        variant="light"
                        onClick={() => setConfirming({ action: 'disable', validator: v })}
                      >
                        Disable
                      </Button>
                    ) : (
                      <Button
                        size="xs"
                        variant="light"
                        loading={change.isPending && change.variables.validatorId === v.id}
                        onClick={() => enable(v)}
                      >
                        Enable
                      </Button>
                    )}
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => setConfirming({ action: 'delete', validator: v })}
                    >
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <NewValidatorDialog
        serviceId={serviceId}
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(validator) => {
          setCreating(false);
          setCreated(validator);
        }}
      />
      <SecretDialog created={created} onClose={() => setCreated(null)} />
      <ConfirmDialog
        opened={confirming !== null}
        onClose={close}
        title={confirming?.action === 'delete' ? 'Delete this validator?' : 'Disable this validator?'}
        confirmLabel={confirming?.action === 'delete' ? 'Delete validator' : 'Disable validator'}
        pending={confirming?.action === 'delete' ? remove.isPending : change.isPending}
        error={confirming?.action === 'delete' ? remove.error : change.error}
        onConfirm={confirm}
      >
        {confirming?.action === 'delete'
          ? `${confirming.validator.url} is asked about no more changes.`
          : `${confirming?.validator.url ?? ''} is not asked until it is enabled again: changes it would refuse are saved.`}
      </ConfirmDialog>
    </Stack>
  );
}
