import { Badge, Button, Code, Group, Loader, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { CreatedPersonalToken, PersonalToken } from '@realtime-config/protocol/rest';
import { ProblemError } from '../../api/problem';
import { ProblemAlert } from '../../components/problem-alert';
import {
  RevokeCredentialButton,
  RevokeCredentialDialog,
  useCredentialRevocation,
} from '../../components/revoke-credential-dialog';
import { ShownOnceDialog } from '../../components/shown-once-dialog';
import { TimeText } from '../../components/time-text';
import { useCreateToken, useRevokeToken, useTokens } from './use-tokens';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a new token lives; the server cuts anything longer to its longest lifetime. */
const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: 'max', label: 'The longest allowed (90 days unless configured otherwise)' },
];

function CreatedTokenDialog({ created, onClose }: { created: CreatedPersonalToken | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      value={created?.token ?? null}
      title="Token created"
      valueLabel="New token"
      copyLabel="Copy"
      onClose={onClose}
    >
      This is the only time the token is shown. Send it as <Code>authorization: Bearer …</Code>; it acts as you until{' '}
      <TimeText iso={created?.expiresAt ?? null} />.
    </ShownOnceDialog>
  );
}

function status(token: PersonalToken) {
  if (token.revokedAt) return <Badge color="gray">Revoked</Badge>;
  if (new Date(token.expiresAt).getTime() <= Date.now()) return <Badge color="gray">Expired</Badge>;
  return null;
}

/** Your personal access tokens, for scripts and pipelines: created (shown once), listed, revoked. */
export function PersonalTokens() {
  const tokens = useTokens();
  const create = useCreateToken();
  const revocation = useCredentialRevocation(useRevokeToken());
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('30');
  const [created, setCreated] = useState<CreatedPersonalToken | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') return;
    const expiresAt = expiry === 'max' ? null : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString();
    create.mutate(
      { name: name.trim(), expiresAt },
      {
        onSuccess: (token) => {
          setCreated(token);
          setName('');
        },
      },
    );
  };
  const nameError = create.error instanceof ProblemError ? create.error.fieldError('name') : undefined;

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        A token acts as you, with your roles, on the REST API and gRPC: for scripts, pipelines and the CLI (
        <Code>REALTIME_CONFIG_TOKEN</Code>). Revoke it when it is no longer needed.
      </Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-end">
          <TextInput
            label="Name"
            placeholder="deploy pipeline"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={nameError}
            w={{ base: '100%', xs: 260 }}
          />
          <NativeSelect
            label="Expires in"
            data={EXPIRIES}
            value={expiry}
            onChange={(e) => setExpiry(e.currentTarget.value)}
            w={{ base: '100%', xs: 260 }}
          />
          <Button type="submit" loading={create.isPending} disabled={name.trim() === ''}>
            Create token
          </Button>
        </Group>
      </form>
      {create.isError && <ProblemAlert error={create.error} hideFields={['name']} />}
      {tokens.isPending && <Loader aria-label="Loading tokens" />}
      {tokens.isError && <ProblemAlert error={tokens.error} />}
      {tokens.data?.length === 0 && <Text size="sm">You have no tokens.</Text>}
      {tokens.data && tokens.data.length > 0 && (
        <Table striped aria-label="Personal access tokens" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Token starts with</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.data.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>{t.name}</Table.Td>
                <Table.Td data-label="Starts with">
                  <Code>{t.prefix}…</Code>
                </Table.Td>
                <Table.Td data-label="Expires">
                  <TimeText iso={t.expiresAt} />
                </Table.Td>
                <Table.Td data-label="Created">
                  <TimeText iso={t.createdAt} />
                </Table.Td>
                <Table.Td data-label="Last used">{t.lastUsedAt ? <TimeText iso={t.lastUsedAt} /> : 'never'}</Table.Td>
                <Table.Td>{status(t) ?? <RevokeCredentialButton revocation={revocation} credential={t} />}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CreatedTokenDialog created={created} onClose={() => setCreated(null)} />
      <RevokeCredentialDialog revocation={revocation} confirmLabel="Revoke token">
        Scripts and pipelines using this token are refused from now on, open streams end within seconds. This cannot be
        undone.
      </RevokeCredentialDialog>
    </Stack>
  );
}
