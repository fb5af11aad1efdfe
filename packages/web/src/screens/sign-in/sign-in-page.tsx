import { Button, Center, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { SecretInput } from '../../components/secret-input';
import { Navigate, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { ProblemAlert } from '../../components/problem-alert';
import { ReadOnlyBanner } from '../../app/read-only-banner';
import { safeReturnUrl, signInRoute } from './route';
import { startPkceSignIn } from './pkce';
import { useAuthConfig, useLocalSignIn, useMe } from './use-session';

function LocalSignIn({ returnUrl }: { returnUrl: string }) {
  const signIn = useLocalSignIn();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ username, password }, { onSuccess: () => void navigate({ to: returnUrl, replace: true }) });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        {signIn.isError && <ProblemAlert error={signIn.error} />}
        <TextInput
          label="Username"
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          data-autofocus
        />
        <SecretInput
          label="Password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <Button type="submit" loading={signIn.isPending}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}

function ProviderSignIn({ provider, returnUrl }: { provider: string; returnUrl: string }) {
  const config = useAuthConfig();
  const [error, setError] = useState<unknown>(null);
  const start = () => {
    if (provider === 'jwt' && config.data?.jwt) {
      startPkceSignIn(config.data.jwt, returnUrl).catch(setError);
    } else {
      window.location.assign(`/auth/login?returnUrl=${encodeURIComponent(returnUrl)}`);
    }
  };
  return (
    <Stack>
      {error != null && <ProblemAlert error={error} />}
      <Text c="dimmed">You sign in with your organisation's identity provider.</Text>
      <Button onClick={start}>Sign in</Button>
    </Stack>
  );
}

export function SignInPage() {
  const { returnUrl } = signInRoute.useSearch();
  const target = safeReturnUrl(returnUrl);
  const config = useAuthConfig();
  const me = useMe();

  if (me.data) return <Navigate to={target} replace />;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="main">
        <Stack>
          <Title order={1} size="h2">
            Sign in to Realtime Config
          </Title>
          <ReadOnlyBanner />
          {config.isPending && <Loader aria-label="Loading" />}
          {config.isError && <ProblemAlert error={config.error} />}
          {config.data &&
            (config.data.provider === 'local' ? (
              <LocalSignIn returnUrl={target} />
            ) : (
              <ProviderSignIn provider={config.data.provider} returnUrl={target} />
            ))}
        </Stack>
      </Paper>
    </Center>
  );
}
