import { Button, Stack } from '@mantine/core';
import { useState } from 'react';
import type { CreatedValidator, Validator } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { validatorRules } from '../../rules/form-rules';
import {
  DeleteEndpointButton,
  EndpointListStatus,
  EndpointSecretDialog,
  EndpointsHeader,
  EndpointTable,
  NewEndpointDialog,
  ownersOnly,
} from './endpoint-parts';
import { validatorsTabRoute } from './route';
import { useChangeValidator, useCreateValidator, useDeleteValidator, useValidators } from './use-validators';

const EMPTY = { url: '', description: '' };

/** What an owner is asked to confirm: removing a validator, or letting writes past it. */
type Pending = { readonly action: 'delete' | 'disable'; readonly validator: Validator };

/** Validators of the service: list, `New validator` (the secret shown once), enable or disable, delete. */
export function ValidatorsTab() {
  const { serviceId } = validatorsTabRoute.useParams();
  const validators = useValidators(serviceId);
  const create = useCreateValidator(serviceId);
  const remove = useDeleteValidator(serviceId);
  const change = useChangeValidator(serviceId);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedValidator | null>(null);
  const [confirming, setConfirming] = useState<Pending | null>(null);

  const refused = ownersOnly(validators, 'validators');
  if (refused) return refused;
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
      <EndpointsHeader newLabel="New validator" onNew={() => setCreating(true)}>
        Before a change of this service&apos;s values is saved, every enabled validator is asked; if one does not answer
        2xx, nothing is saved and its answer is shown.
      </EndpointsHeader>
      <EndpointListStatus list={validators} plural="validators" emptyTitle="No validators yet">
        Add one to let a CI gate or a policy check approve each change before it goes live.
      </EndpointListStatus>
      {change.isError && !confirming && <ProblemAlert error={change.error} />}
      <EndpointTable
        label="Validators"
        endpoints={validators.data}
        columns={[{ header: 'Created', cell: (v) => <TimeText iso={v.createdAt} /> }]}
        actions={(v) => (
          <>
            {v.enabled ? (
              <Button size="xs" variant="light" onClick={() => setConfirming({ action: 'disable', validator: v })}>
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
            <DeleteEndpointButton onClick={() => setConfirming({ action: 'delete', validator: v })} />
          </>
        )}
      />
      <NewEndpointDialog
        noun="validator"
        opened={creating}
        create={create}
        empty={EMPTY}
        rules={validatorRules}
        bodyOf={(validator) => validator}
        url={{
          placeholder: 'https://ci.example.com/realtime-config/validate',
          description:
            "Every change of this service's values is posted here, signed, before it is saved; an answer other than 2xx refuses it.",
        }}
        descriptionPlaceholder="CI gate"
        onClose={() => setCreating(false)}
        onCreated={(validator) => {
          setCreating(false);
          setCreated(validator);
        }}
      />
      <EndpointSecretDialog noun="Validator" created={created} onClose={() => setCreated(null)}>
        Your validator verifies each request with it.
      </EndpointSecretDialog>
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
