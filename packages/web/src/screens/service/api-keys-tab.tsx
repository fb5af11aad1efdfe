import { Badge, Button, Checkbox, Code, Group, Loader, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ApiKeyScope, CreatedApiKey } from '@realtime-config/protocol/rest';
import { SCOPE_WORDS } from '@realtime-config/protocol/vocabulary';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import {
  RevokeCredentialButton,
  RevokeCredentialDialog,
  useCredentialRevocation,
} from '../../components/revoke-credential-dialog';
import { ShownOnceDialog } from '../../components/shown-once-dialog';
import { TimeText } from '../../components/time-text';
import { useMe } from '../sign-in/use-session';
import { apiKeysTabRoute } from './route';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, useServiceAccess } from './use-service';

/** The scopes a key may have, what each allows in the shared words (docs/concepts.md). */
const SCOPES: ReadonlyArray<{ value: ApiKeyScope; description: string }> = (
  ['read', 'register', 'write', 'secrets'] as const
).map((value) => ({ value, description: SCOPE_WORDS[value]?.meaning ?? value }));
const DEFAULT_SCOPES: readonly ApiKeyScope[] = ['read', 'register'];

function CreatedKeyDialog({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      value={created?.key ?? null}
      title="API key created"
      valueLabel="New API key"
      copyLabel="Copy key"
      onClose={onClose}
    >
      This is the only time the key is shown. Store it where your application reads its secrets.
    </ShownOnceDialog>
  );
}

/** API keys for applications and pipelines: created with scopes (shown once), listed, revoked. Owners and admins. */
export function ApiKeysTab() {
  const { serviceId } = apiKeysTabRoute.useParams();
  const me = useMe();
  const access = useServiceAccess(serviceId, me.data);
  const keys = useApiKeys(serviceId, access.manage);
  const create = useCreateApiKey(serviceId);
  const revocation = useCredentialRevocation(useRevokeApiKey(serviceId));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<readonly string[]>(DEFAULT_SCOPES);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  if (access.pending) return <Loader aria-label="Loading API keys" />;
  if (!access.manage) {
    return (
      <Text>
        Only owners of this service and admins see and manage API keys. Ask one for a key for your application.
      </Text>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') return;
    const chosen = SCOPES.map((s) => s.value).filter((s) => scopes.includes(s));
    create.mutate(
      { name: name.trim(), scopes: chosen },
      {
        onSuccess: (key) => {
          setCreated(key);
          setName('');
          setScopes(DEFAULT_SCOPES);
        },
      },
    );
  };

  return (
    <Stack>
      <Text c="dimmed" size="sm">
        Applications and pipelines send an API key as <Code>authorization: Bearer …</Code>. A key works only for this
        service and only within its scopes: give each the least it needs.
      </Text>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput
            label="Key name"
            placeholder="orders-production"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            w={{ base: '100%', xs: 320 }}
          />
          <Checkbox.Group
            label="Scopes"
            description="An application needs read and register; a pipeline that sets values read and write."
            value={[...scopes]}
            onChange={setScopes}
            error={scopes.length === 0 ? 'Choose at least one scope.' : undefined}
          >
            <Stack gap={6} mt={6}>
              {SCOPES.map((s) => (
                <Checkbox key={s.value} value={s.value} label={s.value} description={s.description} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Group>
            <Button type="submit" loading={create.isPending} disabled={name.trim() === '' || scopes.length === 0}>
              Create API key
            </Button>
          </Group>
        </Stack>
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
              <Table.Th>Scopes</Table.Th>
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
                <Table.Td data-label="Scopes">
                  <Group gap={4}>
                    {k.scopes.map((scope) => (
                      <Badge key={scope} variant="light" color={scope === 'secrets' ? 'orange' : 'blue'}>
                        {scope}
                      </Badge>
                    ))}
                  </Group>
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
                    <RevokeCredentialButton revocation={revocation} credential={k} />
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CreatedKeyDialog created={created} onClose={() => setCreated(null)} />
      <RevokeCredentialDialog revocation={revocation} confirmLabel="Revoke key">
        Applications using this key are refused from now on. This cannot be undone.
      </RevokeCredentialDialog>
    </Stack>
  );
}
