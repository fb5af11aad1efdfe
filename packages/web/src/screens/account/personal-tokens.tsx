import { Button, Code, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { ProblemError } from '../../api/problem';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { useNewCredential } from '../../components/use-new-credential';
import { TokenTable } from './token-table';
import { useCreateToken, useRevokeToken, useTokens } from './use-tokens';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a new token lives; the server cuts anything longer to its longest lifetime. */
const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: 'max', label: 'The longest allowed (90 days unless configured otherwise)' },
];
/** The dialog that shows a new token, this once. */
const NEW_TOKEN = { title: 'Token created', valueLabel: 'New token', copyLabel: 'Copy' };

/** Your personal access tokens, for scripts and pipelines: created (shown once), listed, revoked. */
export function PersonalTokens() {
  const tokens = useTokens();
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [expiry, setExpiry] = useState('30');
  const creation = useNewCredential(create);
  const submit = creation.submit((name) => ({
    name,
    expiresAt: expiry === 'max' ? null : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString(),
  }));
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
            {...creation.nameInput}
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
          <Button type="submit" loading={create.isPending} disabled={!creation.ready}>
            Create token
          </Button>
        </Group>
      </form>
      {create.isError && <ProblemAlert error={create.error} hideFields={['name']} />}
      <TokenTable
        list={tokens}
        revoke={revoke}
        empty="You have no tokens."
        shownOnce={{
          ...NEW_TOKEN,
          value: creation.created?.token ?? null,
          onClose: creation.dismiss,
          children: (
            <>
              This is the only time the token is shown. Send it as <Code>authorization: Bearer …</Code>; it acts as you
              until <TimeText iso={creation.created?.expiresAt ?? null} />.
            </>
          ),
        }}
      />
    </Stack>
  );
}
