import { Button, Group, Loader, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Member, ServiceRole } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { ProblemError } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { membersTabRoute } from './route';
import { useAddMember, useChangeMemberRole, useMembers, useRemoveMember, useServiceAccess } from './use-service';

export const ROLES: ReadonlyArray<{ value: ServiceRole; label: string }> = [
  { value: 'viewer', label: 'viewer' },
  { value: 'editor', label: 'editor' },
  { value: 'owner', label: 'owner' },
];

/** What each role may do, in words (docs/rest-api.md, Who may call what). */
const ROLE_MEANING =
  'Viewers read; editors also change values and review change requests; owners also manage the service.';

/**
 * Adding a member with a role. With Local accounts the server takes only their usernames, so the form
 * offers them in a list (those not yet members); with an identity provider, the id or e-mail it gives.
 */
function AddMemberForm({
  serviceId,
  localUsers,
  listUsers,
  members,
}: {
  serviceId: string;
  localUsers: boolean;
  /** Only admins may list the users; owners type a username. */
  listUsers: boolean;
  members: readonly string[];
}) {
  const add = useAddMember(serviceId);
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<ServiceRole>('editor');
  const users = useQuery({
    queryKey: queryKeys.users,
    queryFn: () => unwrap(api.GET('/api/users')),
    enabled: localUsers && listUsers,
  });
  const pickFromList = localUsers && listUsers;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (userId.trim() === '') return;
    add.mutate({ userId: userId.trim(), role }, { onSuccess: () => setUserId('') });
  };
  const fieldError = add.error instanceof ProblemError ? add.error.fieldError('userId') : undefined;
  const taken = new Set(members.map((m) => m.toLowerCase()));
  const candidates = (users.data ?? []).filter((u) => !taken.has(u.username.toLowerCase()));
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xs">
        <Group align="flex-end">
          {pickFromList ? (
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
              label={localUsers ? 'Username' : 'User id or e-mail'}
              description={
                localUsers ? 'A user of this server' : 'The id or e-mail your identity provider gives the user'
              }
              autoComplete="off"
              value={userId}
              onChange={(e) => setUserId(e.currentTarget.value)}
              error={fieldError}
              w={{ base: '100%', xs: 320 }}
            />
          )}
          <NativeSelect
            label="Role"
            data={ROLES.map((r) => ({ ...r }))}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as ServiceRole)}
            w={{ base: '100%', xs: 160 }}
          />
          <Button type="submit" loading={add.isPending} disabled={userId.trim() === ''}>
            Add member
          </Button>
        </Group>
        {add.isError && <ProblemAlert error={add.error} hideFields={['userId']} />}
      </Stack>
    </form>
  );
}

/** A member's role: a select for those who manage the service, its name for the others. */
function RoleCell({ serviceId, member, editable }: { serviceId: string; member: Member; editable: boolean }) {
  const change = useChangeMemberRole(serviceId);
  if (!editable) return <>{member.role}</>;
  return (
    <Stack gap={4}>
      <NativeSelect
        aria-label={`Role of ${member.userId}`}
        data={ROLES.map((r) => ({ ...r }))}
        value={change.isPending ? change.variables.role : member.role}
        disabled={change.isPending}
        onChange={(e) => change.mutate({ userId: member.userId, role: e.currentTarget.value as ServiceRole })}
        size="xs"
        w={120}
      />
      {change.isError && <ProblemAlert error={change.error} />}
    </Stack>
  );
}

/** Members and their roles in this service. Owners (and admins) add, remove and change them. */
export function MembersTab() {
  const { serviceId } = membersTabRoute.useParams();
  const members = useMembers(serviceId);
  const me = useMe();
  const abilities = me.data ? abilitiesOf(me.data) : null;
  const access = useServiceAccess(serviceId, me.data);
  const manage = access.manage;
  const remove = useRemoveMember(serviceId);
  const [removing, setRemoving] = useState<string | null>(null);

  return (
    <Stack>
      <Text c="dimmed" size="sm">
        {ROLE_MEANING} Admins may do everything, member or not.
      </Text>
      {manage ? (
        <AddMemberForm
          serviceId={serviceId}
          localUsers={abilities?.isLocal ?? false}
          listUsers={abilities?.canAll ?? false}
          members={(members.data ?? []).map((m) => m.userId)}
        />
      ) : (
        !access.pending && <Text size="sm">Only owners of this service and admins add or remove members.</Text>
      )}
      {members.isPending && <Loader aria-label="Loading members" />}
      {members.isError && <ProblemAlert error={members.error} />}
      {members.data?.length === 0 && (
        <EmptyState title="No members yet">
          {manage
            ? 'Add the people who read, change or own this service’s values; admins need no membership.'
            : 'Only admins can change values until an owner or an admin adds members.'}
        </EmptyState>
      )}
      {members.data && members.data.length > 0 && (
        <Table striped aria-label="Members" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>User</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Added</Table.Th>
              <Table.Th>Added by</Table.Th>
              {manage && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data.map((m) => (
              <Table.Tr key={m.userId}>
                <Table.Td>{m.userId}</Table.Td>
                <Table.Td data-label="Role">
                  <RoleCell serviceId={serviceId} member={m} editable={manage} />
                </Table.Td>
                <Table.Td data-label="Added">
                  <TimeText iso={m.addedAt} />
                </Table.Td>
                <Table.Td data-label="By">{m.addedBy ?? '—'}</Table.Td>
                {manage && (
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
        {removing} loses their role in this service (unless they are an admin).
      </ConfirmDialog>
    </Stack>
  );
}
