import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** Your personal access tokens, newest first (never the tokens themselves). */
export function useTokens() {
  return useQuery({ queryKey: queryKeys.tokens, queryFn: () => unwrap(api.GET('/api/auth/tokens')) });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; expiresAt: string | null }) => unwrap(api.POST('/api/auth/tokens', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tokens }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) =>
      unwrap(api.DELETE('/api/auth/tokens/{tokenId}', { params: { path: { tokenId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tokens }),
  });
}
