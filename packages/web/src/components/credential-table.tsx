import { Badge, Code, Loader, Table } from '@mantine/core';
import type { ReactNode } from 'react';
import { ProblemAlert } from './problem-alert';
import {
  RevokeCredentialButton,
  RevokeCredentialDialog,
  useCredentialRevocation,
  type RevokeMutation,
} from './revoke-credential-dialog';
import { ShownOnceDialog, type ShownOnceDialogProps } from './shown-once-dialog';
import { TimeText } from './time-text';

/** A credential as the server lists it (API key, personal token): never the secret, only its first characters. */
export interface ListedCredential {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** A column only one kind of credential has (scopes, expiry), shown after its first characters. */
export interface CredentialColumn<C> {
  /** Its header, also said before the cell on a phone (where a row is a card). */
  readonly header: string;
  readonly cell: (credential: C) => ReactNode;
}

interface CredentialTableProps<C extends ListedCredential> {
  /** The table's accessible name, e.g. "API keys". */
  readonly label: string;
  /** What one credential is called: "Key starts with", and "Revoke key" in the question. */
  readonly noun: 'Key' | 'Token';
  /** The list as its query has it. */
  readonly list: { readonly data?: readonly C[]; readonly isPending: boolean; readonly error: Error | null };
  /** The loader's accessible name, e.g. "Loading API keys". */
  readonly loadingLabel: string;
  /** What an empty list shows. */
  readonly empty: ReactNode;
  readonly columns?: ReadonlyArray<CredentialColumn<C>>;
  /** Who made it, said after when. */
  readonly createdBy?: (credential: C) => string | null;
  /** Why a credential that is not revoked no longer works (e.g. "Expired"), or null while it does. */
  readonly lapsed?: (credential: C) => string | null;
  readonly revoke: RevokeMutation;
  /** What revoking ends, in the question before it. */
  readonly revokeWarning: ReactNode;
  /** A credential just made, its secret shown this once (where the list makes credentials). */
  readonly shownOnce?: ShownOnceDialogProps;
}

/**
 * A list of credentials (a service's API keys, a user's personal tokens): name, first characters,
 * the kind's own columns, created, last used, and per live credential a `Revoke <name>` button
 * that asks first; a revoked or lapsed one shows a badge instead. The secret of one just made is
 * shown once, in a dialog.
 */
export function CredentialTable<C extends ListedCredential>(props: CredentialTableProps<C>) {
  const { list, columns = [], noun } = props;
  const revocation = useCredentialRevocation(props.revoke);
  const status = (c: C) => (c.revokedAt ? 'Revoked' : (props.lapsed?.(c) ?? null));
  return (
    <>
      {list.isPending && <Loader aria-label={props.loadingLabel} />}
      {list.error && <ProblemAlert error={list.error} />}
      {list.data?.length === 0 && props.empty}
      {list.data && list.data.length > 0 && (
        <Table striped aria-label={props.label} className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>{noun} starts with</Table.Th>
              {columns.map((column) => (
                <Table.Th key={column.header}>{column.header}</Table.Th>
              ))}
              <Table.Th>Created</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>{c.name}</Table.Td>
                <Table.Td data-label="Starts with">
                  <Code>{c.prefix}…</Code>
                </Table.Td>
                {columns.map((column) => (
                  <Table.Td key={column.header} data-label={column.header}>
                    {column.cell(c)}
                  </Table.Td>
                ))}
                <Table.Td data-label="Created" data-full>
                  <TimeText iso={c.createdAt} /> {props.createdBy?.(c) ? `by ${props.createdBy(c)}` : ''}
                </Table.Td>
                <Table.Td data-label="Last used" data-full>
                  {c.lastUsedAt ? <TimeText iso={c.lastUsedAt} /> : 'never'}
                </Table.Td>
                <Table.Td>
                  {status(c) ? (
                    <Badge color="gray">{status(c)}</Badge>
                  ) : (
                    <RevokeCredentialButton revocation={revocation} credential={c} />
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {props.shownOnce && <ShownOnceDialog {...props.shownOnce} />}
      <RevokeCredentialDialog revocation={revocation} confirmLabel={`Revoke ${noun.toLowerCase()}`}>
        {props.revokeWarning}
      </RevokeCredentialDialog>
    </>
  );
}
