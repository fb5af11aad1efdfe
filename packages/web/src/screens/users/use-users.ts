import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NewUser, UserChange } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export function useUsers() {
  return useQuery({ queryKey: queryKeys.users, queryFn: () => unwrap(api.GET('/api/users')) });
}

function useUserMutation<T>(call: (vars: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.users }),
  });
}

export function useCreateUser() {
  return useUserMutation((body: NewUser) => unwrap(api.POST('/api/users', { body })));
}

export function useUpdateUser() {
  return useUserMutation(({ username, ...body }: UserChange & { username: string }) =>
    unwrap(api.PUT('/api/users/{username}', { params: { path: { username } }, body })),
  );
}

export function useDeleteUser() {
  return useUserMutation((username: string) =>
    unwrap(api.DELETE('/api/users/{username}', { params: { path: { username } } })),
  );
}

/** A user's personal access tokens, as an admin sees them (never the tokens themselves). */
export function useUserTokens(username: string) {
  return useQuery({
    queryKey: queryKeys.userTokens(username),
    queryFn: () => unwrap(api.GET('/api/users/{username}/tokens', { params: { path: { username } } })),
  });
}

export function useRevokeUserToken(username: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) =>
      unwrap(api.DELETE('/api/users/{username}/tokens/{tokenId}', { params: { path: { username, tokenId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.userTokens(username) }),
  });
}
