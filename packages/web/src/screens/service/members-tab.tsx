import { Button, Group, Loader, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { ProblemError } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { membersTabRoute } from './route';
import { useAddMember, useMembers, useRemoveMember } from './use-service';

function AddMemberForm({ serviceId, suggestLocalUsers }: { serviceId: string; suggestLocalUsers: boolean }) {
  const add = useAddMember(serviceId);
  const [userId, setUserId] = useState('');
  const users = useQuery({
    queryKey: queryKeys.users,
    queryFn: () => unwrap(api.GET('/api/users')),
    enabled: suggestLocalUsers,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (userId.trim() === '') return;
    add.mutate(userId.trim(), { onSuccess: () => setUserId('') });
  };
  const fieldError = add.error instanceof ProblemError ? add.error.fieldError('userId') : undefined;
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xs">
        <Group align="flex-end">
          <TextInput
            label="User id or e-mail"
            description={suggestLocalUsers ? 'A Local user' : 'The id or e-mail the identity provider gives the user'}
            list="local-users"
            autoComplete="off"
            value={userId}
            onChange={(e) => setUserId(e.currentTarget.value)}
            error={fieldError}
            w={320}
          />
          <datalist id="local-users">
            {(users.data ?? []).map((u) => (
              <option key={u.username} value={u.username} />
            ))}
          </datalist>
          <Button type="submit" loading={add.isPending} disabled={userId.trim() === ''}>
            Add member
          </Button>
        </Group>
        {add.isError && <ProblemAlert error={add.error} hideFields={['userId']} />}
      </Stack>
    </form>
  );
}

/** Members: the users who may change this service's values (canChange). Admins add and remove them. */
export function MembersTab() {
  const { serviceId } = membersTabRoute.useParams();
  const members = useMembers(serviceId);
  const me = useMe();
  const abilities = me.data ? abilitiesOf(me.data) : null;
  const remove = useRemoveMember(serviceId);
  const [removing, setRemoving] = useState<string | null>(null);

  return (
    <Stack>
      <Text c="dimmed" size="sm">
        Members with the canChange policy may change this service&apos;s values. Admins may change everything.
      </Text>
      {abilities?.canAll ? (
        <AddMemberForm serviceId={serviceId} suggestLocalUsers={abilities.isLocal} />
      ) : (
        <Text size="sm">Only admins add or remove members.</Text>
      )}
      {members.isPending && <Loader aria-label="Loading members" />}
      {members.isError && <ProblemAlert error={members.error} />}
      {members.data?.length === 0 && (
        <EmptyState title="No members yet">
          {abilities?.canAll
            ? 'Add the developers who change this service’s values; admins need no membership.'
            : 'Only admins can change values until an admin adds members.'}
        </EmptyState>
      )}
      {members.data && members.data.length > 0 && (
        <Table striped aria-label="Members">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>User</Table.Th>
              <Table.Th>Added</Table.Th>
              <Table.Th>Added by</Table.Th>
              {abilities?.canAll && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data.map((m) => (
              <Table.Tr key={m.userId}>
                <Table.Td>{m.userId}</Table.Td>
                <Table.Td>
                  <TimeText iso={m.addedAt} />
                </Table.Td>
                <Table.Td>{m.addedBy ?? '—'}</Table.Td>
                {abilities?.canAll && (
                  <Table.Td>
                    <Button size="xs" variant="subtle" color="red" onClick={() => setRemoving(m.userId)}>
                      Remove {m.userId}
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => {
          setRemoving(null);
          remove.reset();
        }}
        title={`Remove ${removing ?? ''}?`}
        confirmLabel="Remove member"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => removing && remove.mutate(removing, { onSuccess: () => setRemoving(null) })}
      >
        {removing} can no longer change this service&apos;s values (unless they are an admin).
      </ConfirmDialog>
    </Stack>
  );
}
