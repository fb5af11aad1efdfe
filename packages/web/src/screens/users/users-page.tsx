import { Button, Group, Loader, NativeSelect, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import type { Role } from '@realtime-config/protocol/rest';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { NewUserDialog, ResetPasswordDialog } from './user-dialogs';
import { UserTokensDrawer } from './user-tokens-drawer';
import { useDeleteUser, useUpdateUser, useUsers } from './use-users';

/** Local accounts and their roles (Local provider, canAll). */
export function UsersPage() {
  const me = useMe();
  const abilities = me.data ? abilitiesOf(me.data) : null;
  const users = useUsers();
  const update = useUpdateUser();
  const remove = useDeleteUser();
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [showingTokens, setShowingTokens] = useState<string | null>(null);

  const admins = (users.data ?? []).filter((u) => u.role === 'admin').length;
  if (abilities && (!abilities.canAll || !abilities.isLocal)) {
    return (
      <Text>
        {abilities.isLocal
          ? 'Only admins manage users.'
          : 'Users are managed in your identity provider; roles come from its claims.'}
      </Text>
    );
  }
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Users</Title>
        <Button onClick={() => setCreating(true)}>New user</Button>
      </Group>
      <Text c="dimmed" size="sm">
        An admin may do everything. A developer may change the values of the services they are a member of.
      </Text>
      {users.isPending && <Loader aria-label="Loading users" />}
      {users.isError && <ProblemAlert error={users.error} />}
      {update.isError && <ProblemAlert error={update.error} />}
      {users.data && (
        <Table striped aria-label="Users" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Username</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.data.map((u) => {
              const self = u.username === me.data?.id;
              // The server keeps at least one admin: the last one's role cannot change (it would answer 409).
              const lastAdmin = u.role === 'admin' && admins === 1;
              return (
                <Table.Tr key={u.username}>
                  <Table.Td>
                    {u.username}{' '}
                    {self && (
                      <Text span c="dimmed">
                        (you)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <NativeSelect
                      aria-label={`Role of ${u.username}`}
                      data={['admin', 'developer']}
                      value={u.role}
                      onChange={(e) => update.mutate({ username: u.username, role: e.currentTarget.value as Role })}
                      disabled={lastAdmin}
                      description={lastAdmin ? 'The only admin: make another user admin first' : undefined}
                      inputWrapperOrder={['input', 'description']}
                      w={{ base: '100%', xs: 220 }}
                    />
                  </Table.Td>
                  <Table.Td data-label="Created">
                    <TimeText iso={u.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs">
                      <Button size="xs" variant="default" onClick={() => setResetting(u.username)}>
                        Set password<VisuallyHidden> for {u.username}</VisuallyHidden>
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Tokens of ${u.username}`}
                        onClick={() => setShowingTokens(u.username)}
                      >
                        Tokens
                      </Button>
                      {self ? (
                        <Text size="xs" c="dimmed">
                          You cannot delete yourself
                        </Text>
                      ) : (
                        <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(u.username)}>
                          Delete {u.username}
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <NewUserDialog opened={creating} onClose={() => setCreating(false)} />
      <ResetPasswordDialog username={resetting} onClose={() => setResetting(null)} />
      <UserTokensDrawer username={showingTokens} onClose={() => setShowingTokens(null)} />
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
        title={`Delete ${deleting ?? ''}?`}
        confirmLabel="Delete user"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting, { onSuccess: () => setDeleting(null) })}
      >
        {deleting} can no longer sign in. Their audit records stay.
      </ConfirmDialog>
    </Stack>
  );
}
