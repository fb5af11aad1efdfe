import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { Credentials, Me } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { authToken } from '../../api/auth-token';
import { ProblemError } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';

/** The signed-in user, or null when nobody is signed in (401). */
export const meQuery = queryOptions({
  queryKey: queryKeys.me,
  queryFn: async (): Promise<Me | null> => {
    try {
      return await unwrap(api.GET('/auth/me'));
    } catch (error) {
      if (error instanceof ProblemError && error.status === 401) return null;
      throw error;
    }
  },
  staleTime: 60_000,
});

export function useMe() {
  return useQuery(meQuery);
}

export function useAuthConfig() {
  return useQuery({
    queryKey: queryKeys.authConfig,
    queryFn: () => unwrap(api.GET('/auth/config')),
    staleTime: Infinity,
  });
}

/** Whether this server is a primary or a read-only follower; it changes when a standby is promoted. */
export function useInstanceRole() {
  return useQuery({
    queryKey: queryKeys.instanceRole,
    queryFn: () => unwrap(api.GET('/auth/instance')),
    staleTime: 30_000,
    refetchInterval: 30_000,
  });
}

/** What the signed-in user may do, from the policies the server resolved. */
export interface Abilities {
  readonly canAll: boolean;
  readonly canChange: boolean;
  readonly isLocal: boolean;
}

export function abilitiesOf(me: Me): Abilities {
  return {
    canAll: me.policies.includes('canAll'),
    canChange: me.policies.includes('canChange') || me.policies.includes('canAll'),
    isLocal: me.provider.toLowerCase() === 'local',
  };
}

export function useLocalSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Credentials) => unwrap(api.POST('/auth/login', { body })),
    onSuccess: (me) => {
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, me);
    },
  });
}

/** Ends the session the way the active provider does it. */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async (provider: string) => {
      switch (provider.toLowerCase()) {
        case 'local':
          await unwrap(api.POST('/auth/logout'));
          return null;
        case 'openid':
          return '/auth/logout';
        case 'saml':
          return '/saml2/Logout';
        default:
          authToken.set(null);
          return null;
      }
    },
    onSuccess: (redirectTo) => {
      if (redirectTo) {
        window.location.assign(redirectTo);
        return;
      }
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, null);
      void navigate({ to: '/sign-in', search: {} });
    },
  });
}
