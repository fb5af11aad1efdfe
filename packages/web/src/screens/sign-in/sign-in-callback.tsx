import { Button, Center, Loader, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { authToken } from '../../api/auth-token';
import { queryKeys } from '../../api/query-keys';
import { ProblemAlert } from '../../components/problem-alert';
import { finishPkceSignIn } from './pkce';
import { safeReturnUrl } from './route';
import { useAuthConfig } from './use-session';

/** Where the Jwt provider sends the browser back with a code (Authorization Code + PKCE). */
export function SignInCallback() {
  const config = useAuthConfig();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  const started = useRef(false);

  useEffect(() => {
    const jwt = config.data?.jwt;
    if (!jwt || started.current) return;
    started.current = true;
    finishPkceSignIn(jwt, new URLSearchParams(window.location.search))
      .then(({ token, returnUrl }) => {
        authToken.set(token);
        void queryClient.invalidateQueries({ queryKey: queryKeys.me });
        void navigate({ to: safeReturnUrl(returnUrl), replace: true });
      })
      .catch(setError);
  }, [config.data, navigate, queryClient]);

  return (
    <Center mih="100vh">
      {error != null || config.isError ? (
        <Stack>
          <ProblemAlert error={error ?? config.error} />
          <Button component={Link} to="/sign-in">
            Back to sign-in
          </Button>
        </Stack>
      ) : (
        <Loader aria-label="Signing in" />
      )}
    </Center>
  );
}
