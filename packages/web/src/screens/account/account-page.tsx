import { Badge, Container, Group, List, Stack, Table, Text, Title } from '@mantine/core';
import { policyWords } from '../../components/plain-words';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { ChangePasswordForm } from './change-password-form';
import { PersonalTokens } from './personal-tokens';

/** The signed-in user: identity, roles, what they may do (in words), and (Local accounts) the password. */
export function AccountPage() {
  const me = useMe();
  if (!me.data) return null;
  const user = me.data;
  const abilities = abilitiesOf(user);
  return (
    <Container size="md">
      <Stack gap="lg">
        <Title order={1}>Your account</Title>
        <Table variant="vertical" withTableBorder layout="fixed">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={160}>User id</Table.Th>
              <Table.Td>{user.id}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Td>{user.name ?? '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>E-mail</Table.Th>
              <Table.Td>{user.email ?? '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Sign-in provider</Table.Th>
              <Table.Td>{user.provider}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Roles</Table.Th>
              <Table.Td>
                <Group gap="xs">
                  {user.roles.length === 0 ? '—' : user.roles.map((role) => <Badge key={role}>{role}</Badge>)}
                </Group>
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <section aria-labelledby="policies-heading">
          <Title order={2} size="h3" id="policies-heading" mb="xs">
            What you may do
          </Title>
          {user.policies.length === 0 ? (
            <Text>No permission yet: you can sign in but not see or change anything. Ask an admin for a role.</Text>
          ) : (
            <List>
              {user.policies.map((policy) => {
                const words = policyWords(policy);
                return (
                  <List.Item key={policy}>
                    <Text span fw={600}>
                      {words.name}
                    </Text>
                    : {words.meaning}.
                  </List.Item>
                );
              })}
            </List>
          )}
          <Text size="sm" c="dimmed" mt="xs">
            Within each service your role there (viewer, editor or owner, under the service&apos;s Members) decides what
            else you may do.
          </Text>
        </section>
        <section aria-labelledby="tokens-heading">
          <Title order={2} size="h3" id="tokens-heading" mb="xs">
            Personal access tokens
          </Title>
          <PersonalTokens />
        </section>
        {abilities.isLocal && (
          <section aria-labelledby="password-heading">
            <Title order={2} size="h3" id="password-heading" mb="xs">
              Password
            </Title>
            <ChangePasswordForm username={user.id} />
          </section>
        )}
      </Stack>
    </Container>
  );
}
