import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export type Role = 'admin' | 'developer';

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
  return useUserMutation((body: { username: string; password: string; role: Role }) =>
    unwrap(api.POST('/api/users', { body })),
  );
}

export function useUpdateUser() {
  return useUserMutation(({ username, ...body }: { username: string; password?: string; role?: Role }) =>
    unwrap(api.PUT('/api/users/{username}', { params: { path: { username } }, body })),
  );
}

export function useDeleteUser() {
  return useUserMutation((username: string) =>
    unwrap(api.DELETE('/api/users/{username}', { params: { path: { username } } })),
  );
}
