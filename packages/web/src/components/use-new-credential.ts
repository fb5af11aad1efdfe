import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';

type CreateMutation<B, C> = Pick<UseMutationResult<C, Error, B>, 'mutate'>;

/**
 * Making a credential (API key, personal token): its name, required and sent trimmed; the one just
 * made, whose secret its list shows once (`created`, until `dismiss`); a success clears the name.
 */
export function useNewCredential<B, C>(create: CreateMutation<B, C>) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<C | null>(null);
  return {
    created,
    dismiss: () => setCreated(null),
    /** Whether the form may be sent: a name is given. */
    ready: name.trim() !== '',
    /** Props for the name's input. */
    nameInput: { value: name, onChange: (e: { currentTarget: { value: string } }) => setName(e.currentTarget.value) },
    /** A submit handler: sends `bodyOf(the trimmed name)`; on success shows the new secret and runs `then`. */
    submit: (bodyOf: (name: string) => B, then?: () => void) => (event: FormEvent) => {
      event.preventDefault();
      if (name.trim() === '') return;
      create.mutate(bodyOf(name.trim()), {
        onSuccess: (made) => {
          setCreated(made);
          setName('');
          then?.();
        },
      });
    },
  };
}
