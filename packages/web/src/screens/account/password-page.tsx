import { Alert, Container, Stack, Title } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useMe } from '../sign-in/use-session';
import { ChangePasswordForm } from './change-password-form';

/** The first screen after signing in with the seeded default password. */
export function PasswordPage() {
  const me = useMe();
  const navigate = useNavigate();
  if (!me.data) return null;
  return (
    <Container size="sm">
      <Stack>
        <Title order={1}>Change your password</Title>
        {me.data.passwordChangeRequired && (
          <Alert color="yellow" title="This account still has its default password">
            Anyone who knows the default can sign in as you. Choose a new password before you continue.
          </Alert>
        )}
        <ChangePasswordForm username={me.data.id} onChanged={() => void navigate({ to: '/services', search: {} })} />
      </Stack>
    </Container>
  );
}
