import { Alert, Button, Stack } from '@mantine/core';
import { SecretInput } from '../../components/secret-input';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PasswordChange } from '@realtime-config/protocol/rest';
import type { FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ProblemAlert } from '../../components/problem-alert';
import { useFormFields } from '../../components/use-form-fields';
import { checkNewPassword } from '../../rules/form-rules';

export function useChangeOwnPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PasswordChange) => unwrap(api.PUT('/api/users/me/password', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.me }),
  });
}

/** Current password, new password twice; the server's password rules checked as you type. */
export function ChangePasswordForm({ username, onChanged }: { username: string; onChanged?: () => void }) {
  const change = useChangeOwnPassword();
  const form = useFormFields(
    { currentPassword: '', newPassword: '', confirmPassword: '' },
    {
      currentPassword: (v) => (v === '' ? 'Enter your current password' : null),
      newPassword: (v) => {
        const problem = checkNewPassword(username, v);
        return problem ? `The new password ${problem}` : null;
      },
      confirmPassword: (v, all) => (v !== all.newPassword ? 'The passwords do not match' : null),
    },
    change.error,
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.trySubmit()) return;
    const { currentPassword, newPassword } = form.values;
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          form.reset();
          onChanged?.();
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={420}>
        {/* Lets password managers tie the new password to this account. */}
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        {change.isError && <ProblemAlert error={change.error} hideFields={['currentPassword', 'newPassword']} />}
        {change.isSuccess && (
          <Alert color="green" role="status" title="Password changed">
            Your other sessions were signed out.
          </Alert>
        )}
        <SecretInput label="Current password" autoComplete="current-password" {...form.input('currentPassword')} />
        <SecretInput
          label="New password"
          description="At least 12 characters, not your username, not a common password."
          autoComplete="new-password"
          {...form.input('newPassword')}
        />
        <SecretInput
          label="Confirmation"
          description="The new password again"
          autoComplete="new-password"
          {...form.input('confirmPassword')}
        />
        <Button type="submit" loading={change.isPending}>
          Change password
        </Button>
      </Stack>
    </form>
  );
}
