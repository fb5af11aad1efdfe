import { Button, Group, Loader, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
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

/**
 * Adding a member. With Local accounts the server takes only their usernames, so the form offers
 * them in a list (those not yet members); with an identity provider, the id or e-mail it gives.
 */
function AddMemberForm({
  serviceId,
  localUsers,
  members,
}: {
  serviceId: string;
  localUsers: boolean;
  members: readonly string[];
}) {
  const add = useAddMember(serviceId);
  const [userId, setUserId] = useState('');
  const users = useQuery({
    queryKey: queryKeys.users,
    queryFn: () => unwrap(api.GET('/api/users')),
    enabled: localUsers,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (userId.trim() === '') return;
    add.mutate(userId.trim(), { onSuccess: () => setUserId('') });
  };
  const fieldError = add.error instanceof ProblemError ? add.error.fieldError('userId') : undefined;
  const taken = new Set(members.map((m) => m.toLowerCase()));
  const candidates = (users.data ?? []).filter((u) => !taken.has(u.username.toLowerCase()));
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xs">
        <Group align="flex-end">
          {localUsers ? (
            <NativeSelect
              label="Username"
              description={
                users.isSuccess && candidates.length === 0
                  ? 'Every user is a member already; add users under Users.'
                  : 'A user of this server (Users)'
              }
              data={[
                { value: '', label: users.isPending ? 'Loading users…' : 'Choose a user' },
                ...candidates.map((u) => ({ value: u.username, label: u.username })),
              ]}
              value={userId}
              onChange={(e) => setUserId(e.currentTarget.value)}
              error={fieldError}
              w={{ base: '100%', xs: 320 }}
            />
          ) : (
            <TextInput
              label="User id or e-mail"
              description="The id or e-mail your identity provider gives the user"
              autoComplete="off"
              value={userId}
              onChange={(e) => setUserId(e.currentTarget.value)}
              error={fieldError}
              w={{ base: '100%', xs: 320 }}
            />
          )}
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
        Members may change this service&apos;s values. Admins may change everything, member or not.
      </Text>
      {abilities?.canAll ? (
        <AddMemberForm
          serviceId={serviceId}
          localUsers={abilities.isLocal}
          members={(members.data ?? []).map((m) => m.userId)}
        />
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
        <Table striped aria-label="Members" className="rc-stack">
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
                <Table.Td data-label="Added">
                  <TimeText iso={m.addedAt} />
                </Table.Td>
                <Table.Td data-label="By">{m.addedBy ?? '—'}</Table.Td>
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
