import { Button } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ConfirmDialog } from './confirm-dialog';

/** A credential as its list shows it: what the server knows it by and the name its owner gave it. */
export interface RevocableCredential {
  readonly id: string;
  readonly name: string;
}

/** The mutation that revokes a credential by its id (a personal token, an API key). */
export type RevokeMutation = Pick<
  UseMutationResult<unknown, Error, string>,
  'mutate' | 'reset' | 'isPending' | 'error'
>;

/** Which credential a revoke is asking about (null: none), and the mutation that revokes it. */
export interface CredentialRevocation {
  readonly revoking: RevocableCredential | null;
  readonly ask: (credential: RevocableCredential) => void;
  /** Closes the question and forgets a failed attempt's error. */
  readonly close: () => void;
  readonly confirm: () => void;
  readonly mutation: RevokeMutation;
}

/** The state shared by a list's RevokeCredentialButtons and its one RevokeCredentialDialog. */
export function useCredentialRevocation(mutation: RevokeMutation): CredentialRevocation {
  const [revoking, setRevoking] = useState<RevocableCredential | null>(null);
  return {
    revoking,
    ask: ({ id, name }) => setRevoking({ id, name }),
    close: () => {
      setRevoking(null);
      mutation.reset();
    },
    confirm: () => {
      if (revoking) mutation.mutate(revoking.id, { onSuccess: () => setRevoking(null) });
    },
    mutation,
  };
}

/** A row's button, named after its credential ("Revoke deploy pipeline"): asks before revoking. */
export function RevokeCredentialButton(props: {
  readonly revocation: CredentialRevocation;
  readonly credential: RevocableCredential;
}) {
  const { revocation, credential } = props;
  return (
    <Button size="xs" variant="subtle" color="red" onClick={() => revocation.ask(credential)}>
      Revoke {credential.name}
    </Button>
  );
}

interface RevokeCredentialDialogProps {
  readonly revocation: CredentialRevocation;
  /** The confirming button's name, e.g. "Revoke key". */
  readonly confirmLabel: string;
  /** Who is refused from now on. */
  readonly children: ReactNode;
}

/**
 * Revoking a credential (personal token, API key) asks first, titled "Revoke NAME?", says who is
 * refused from now on, and shows why it failed; it closes once the server has revoked it.
 */
export function RevokeCredentialDialog({ revocation, confirmLabel, children }: RevokeCredentialDialogProps) {
  const { revoking, mutation } = revocation;
  return (
    <ConfirmDialog
      opened={revoking !== null}
      onClose={revocation.close}
      title={`Revoke ${revoking?.name ?? ''}?`}
      confirmLabel={confirmLabel}
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={revocation.confirm}
    >
      {children}
    </ConfirmDialog>
  );
}
