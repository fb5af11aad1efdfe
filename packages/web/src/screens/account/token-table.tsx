import { Text } from '@mantine/core';
import type { PersonalToken } from '@realtime-config/protocol/rest';
import { CredentialTable } from '../../components/credential-table';
import type { RevokeMutation } from '../../components/revoke-credential-dialog';
import type { ShownOnceDialogProps } from '../../components/shown-once-dialog';
import { TimeText } from '../../components/time-text';

const expired = (t: PersonalToken) => (new Date(t.expiresAt).getTime() <= Date.now() ? 'Expired' : null);

interface TokenTableProps {
  readonly list: {
    readonly data?: readonly PersonalToken[];
    readonly isPending: boolean;
    readonly error: Error | null;
  };
  readonly revoke: RevokeMutation;
  /** What an empty list says. */
  readonly empty: string;
  readonly shownOnce?: ShownOnceDialogProps;
}

/** A user's personal access tokens (your own, or, for admins, anyone's): when each expires, revoked one by one. */
export function TokenTable({ list, revoke, empty, shownOnce }: TokenTableProps) {
  return (
    <CredentialTable
      label="Personal access tokens"
      noun="Token"
      list={list}
      loadingLabel="Loading tokens"
      empty={<Text size="sm">{empty}</Text>}
      columns={[{ header: 'Expires', cell: (t) => <TimeText iso={t.expiresAt} /> }]}
      lapsed={expired}
      revoke={revoke}
      revokeWarning="Scripts and pipelines using this token are refused from now on, open streams end within seconds. This cannot be undone."
      shownOnce={shownOnce}
    />
  );
}
