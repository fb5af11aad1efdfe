import { NativeSelect, TextInput } from '@mantine/core';
import type { Role } from '@realtime-config/protocol/rest';
import { GLOBAL_ROLE_WORDS } from '@realtime-config/protocol/vocabulary';
import { SecretInput } from '../../components/secret-input';
import { FormDialog } from '../../components/form-dialog';
import { useFormFields } from '../../components/use-form-fields';
import { checkNewPassword, checkUsername } from '../../rules/form-rules';
import { useCreateUser, useUpdateUser } from './use-users';

/** The roles a Local user may have, by name; what each allows is said beside the select. */
export const ROLES = Object.values(GLOBAL_ROLE_WORDS).map((r) => ({ value: r.name, label: r.name }));

/** What the global roles allow, in words, e.g. "A developer sees every service, …". */
export const ROLE_MEANINGS = Object.values(GLOBAL_ROLE_WORDS)
  .map((r) => `${r.name === 'admin' ? 'An' : 'A'} ${r.name} ${r.meaning}.`)
  .join(' ');

const passwordRule = (v: string, all: { username: string }) => {
  const problem = checkNewPassword(all.username, v);
  return problem ? `The password ${problem}` : null;
};

/** New user: username, first password and role, with the server's rules as you type. */
export function NewUserDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateUser();
  const form = useFormFields(
    { username: '', password: '', role: 'developer' },
    { username: checkUsername, password: passwordRule },
    create.error,
  );
  const submit = () => {
    if (!form.trySubmit()) return;
    create.mutate({ ...form.values, role: form.values.role as Role }, { onSuccess: onClose });
  };
  return (
    <FormDialog
      opened={opened}
      onClose={onClose}
      title="New user"
      submitLabel="Create"
      mutation={create}
      fields={['username', 'password']}
      onOpen={() => form.reset()}
      onSubmit={submit}
    >
      <TextInput label="Username" data-autofocus autoComplete="off" {...form.input('username')} />
      <SecretInput label="Password" autoComplete="new-password" {...form.input('password')} />
      <NativeSelect label="Role" description={ROLE_MEANINGS} data={ROLES} {...form.input('role')} />
    </FormDialog>
  );
}

/** An admin sets another user's password (it ends that user's sessions). */
export function ResetPasswordDialog({ username, onClose }: { username: string | null; onClose: () => void }) {
  const update = useUpdateUser();
  const form = useFormFields({ username: username ?? '', password: '' }, { password: passwordRule }, update.error);
  const submit = () => {
    if (!form.trySubmit() || !username) return;
    update.mutate({ username, password: form.values.password }, { onSuccess: onClose });
  };
  return (
    <FormDialog
      opened={username !== null}
      onClose={onClose}
      title={`Set a new password for ${username ?? ''}`}
      submitLabel="Set password"
      mutation={update}
      fields={['password']}
      onOpen={() => form.reset({ username: username ?? '', password: '' })}
      onSubmit={submit}
    >
      <SecretInput label="New password" data-autofocus autoComplete="new-password" {...form.input('password')} />
    </FormDialog>
  );
}
