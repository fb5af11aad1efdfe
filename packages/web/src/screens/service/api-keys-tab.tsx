import { Badge, Button, Checkbox, Code, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { ApiKeyScope } from '@realtime-config/protocol/rest';
import { CredentialTable } from '../../components/credential-table';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { useNewCredential } from '../../components/use-new-credential';
import { useMe } from '../sign-in/use-session';
import { apiKeysTabRoute } from './route';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, useServiceAccess } from './use-service';

/** The scopes a key may have, what each allows (docs/rest-api.md, API keys). */
const SCOPES: ReadonlyArray<{ value: ApiKeyScope; description: string }> = [
  { value: 'read', description: 'read values: gRPC GetConfig and StartSubscribe, REST reads' },
  { value: 'register', description: 'register versions (the SDK’s CreateVersion)' },
  { value: 'write', description: 'set, import, restore and promote values; open and apply change requests' },
  { value: 'secrets', description: 'read secret values in plain text' },
];
const DEFAULT_SCOPES: readonly ApiKeyScope[] = ['read', 'register'];
/** The dialog that shows a new key, this once. */
const NEW_KEY = { title: 'API key created', valueLabel: 'New API key', copyLabel: 'Copy key' };

function ScopeBadges({ scopes }: { scopes: readonly ApiKeyScope[] }) {
  return (
    <Group gap={4}>
      {scopes.map((scope) => (
        <Badge key={scope} variant="light" color={scope === 'secrets' ? 'orange' : 'blue'}>
          {scope}
        </Badge>
      ))}
    </Group>
  );
}

/** API keys for applications and pipelines: created with scopes (shown once), listed, revoked. Owners and admins. */
export function ApiKeysTab() {
  const { serviceId } = apiKeysTabRoute.useParams();
  const me = useMe();
  const access = useServiceAccess(serviceId, me.data);
  const keys = useApiKeys(serviceId, access.manage);
  const create = useCreateApiKey(serviceId);
  const revoke = useRevokeApiKey(serviceId);
  const [scopes, setScopes] = useState<readonly string[]>(DEFAULT_SCOPES);
  const creation = useNewCredential(create);

  if (access.pending) return <Loader aria-label="Loading API keys" />;
  if (!access.manage) {
    return (
      <Text>
        Only owners of this service and admins see and manage API keys. Ask one for a key for your application.
      </Text>
    );
  }
  const submit = creation.submit(
    (name) => ({ name, scopes: SCOPES.map((s) => s.value).filter((s) => scopes.includes(s)) }),
    () => setScopes(DEFAULT_SCOPES),
  );

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
            {...creation.nameInput}
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
            <Button type="submit" loading={create.isPending} disabled={!creation.ready || scopes.length === 0}>
              Create API key
            </Button>
          </Group>
        </Stack>
      </form>
      {create.isError && <ProblemAlert error={create.error} />}
      <CredentialTable
        label="API keys"
        noun="Key"
        list={keys}
        loadingLabel="Loading API keys"
        empty={<EmptyState title="No API keys yet">Create one for each application or environment.</EmptyState>}
        columns={[{ header: 'Scopes', cell: (k) => <ScopeBadges scopes={k.scopes} /> }]}
        createdBy={(k) => k.createdBy}
        revoke={revoke}
        revokeWarning="Applications using this key are refused from now on. This cannot be undone."
        shownOnce={{
          ...NEW_KEY,
          value: creation.created?.key ?? null,
          onClose: creation.dismiss,
          children: 'This is the only time the key is shown. Store it where your application reads its secrets.',
        }}
      />
    </Stack>
  );
}
