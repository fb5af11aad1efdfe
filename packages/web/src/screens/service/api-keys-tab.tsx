import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { CreatedApiKey } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { apiKeysTabRoute } from './route';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from './use-service';

function CreatedKeyDialog({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="API key created" closeOnClickOutside={false}>
      {created && (
        <Stack>
          <Alert color="yellow" title="Copy it now">
            This is the only time the key is shown. Store it where your application reads its secrets.
          </Alert>
          <Code block aria-label="New API key">
            {created.key}
          </Code>
          <Group justify="flex-end">
            <CopyButton value={created.key}>
              {({ copied, copy }) => (
                <Button variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/** API keys for the service's gRPC clients: created (shown once), listed by prefix, revoked. Admins only. */
export function ApiKeysTab() {
  const { serviceId } = apiKeysTabRoute.useParams();
  const me = useMe();
  const canAll = me.data ? abilitiesOf(me.data).canAll : false;
  const keys = useApiKeys(serviceId, canAll);
  const create = useCreateApiKey(serviceId);
  const revoke = useRevokeApiKey(serviceId);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);

  if (!canAll) {
    return <Text>Only admins see and manage API keys. Ask an admin for a key for your application.</Text>;
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') return;
    create.mutate(name.trim(), {
      onSuccess: (key) => {
        setCreated(key);
        setName('');
      },
    });
  };

  return (
    <Stack>
      <Text c="dimmed" size="sm">
        Applications send an API key as <Code>authorization: Bearer …</Code> when the server requires gRPC credentials.
      </Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-end">
          <TextInput
            label="Key name"
            placeholder="orders-production"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            w={{ base: '100%', xs: 320 }}
          />
          <Button type="submit" loading={create.isPending} disabled={name.trim() === ''}>
            Create API key
          </Button>
        </Group>
      </form>
      {create.isError && <ProblemAlert error={create.error} />}
      {keys.isPending && <Loader aria-label="Loading API keys" />}
      {keys.isError && <ProblemAlert error={keys.error} />}
      {keys.data?.length === 0 && (
        <EmptyState title="No API keys yet">Create one for each application or environment.</EmptyState>
      )}
      {keys.data && keys.data.length > 0 && (
        <Table striped aria-label="API keys" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Key starts with</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.data.map((k) => (
              <Table.Tr key={k.id}>
                <Table.Td>{k.name}</Table.Td>
                <Table.Td>
                  <Code>{k.prefix}…</Code>
                </Table.Td>
                <Table.Td data-label="Created" data-full>
                  <TimeText iso={k.createdAt} /> {k.createdBy ? `by ${k.createdBy}` : ''}
                </Table.Td>
                <Table.Td data-label="Last used" data-full>
                  {k.lastUsedAt ? <TimeText iso={k.lastUsedAt} /> : 'never'}
                </Table.Td>
                <Table.Td>
                  {k.revokedAt ? (
                    <Badge color="gray">Revoked</Badge>
                  ) : (
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => setRevoking({ id: k.id, name: k.name })}
                    >
                      Revoke {k.name}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CreatedKeyDialog created={created} onClose={() => setCreated(null)} />
      <ConfirmDialog
        opened={revoking !== null}
        onClose={() => {
          setRevoking(null);
          revoke.reset();
        }}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke key"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSuccess: () => setRevoking(null) })}
      >
        Applications using this key are refused from now on. This cannot be undone.
      </ConfirmDialog>
    </Stack>
  );
}
