import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AuditSearch, Me, ServiceFields } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const path = (serviceId: string) => ({ params: { path: { serviceId } } });

export function useService(serviceId: string) {
  return useQuery({
    queryKey: queryKeys.services.detail(serviceId),
    queryFn: () => unwrap(api.GET('/api/services/{serviceId}', path(serviceId))),
  });
}

export function useUpdateService(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ServiceFields) => unwrap(api.PUT('/api/services/{serviceId}', { ...path(serviceId), body })),
    onSuccess: (service) => {
      queryClient.setQueryData(queryKeys.services.detail(serviceId), service);
      void queryClient.invalidateQueries({ queryKey: [...queryKeys.services.all, 'search'] });
    },
  });
}

export function useDeleteService(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/services/{serviceId}', path(serviceId))),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.services.detail(serviceId) });
      void queryClient.invalidateQueries({ queryKey: [...queryKeys.services.all, 'search'] });
    },
  });
}

export function useMembers(serviceId: string) {
  return useQuery({
    queryKey: queryKeys.services.members(serviceId),
    queryFn: () => unwrap(api.GET('/api/services/{serviceId}/members', path(serviceId))),
  });
}

/** Whether the user may set values of this service: canAll, or canChange and a member (docs/rest-api.md). */
export function useMayChangeValues(serviceId: string, me: Me | null | undefined) {
  const canAll = me?.policies.includes('canAll') ?? false;
  const members = useMembers(serviceId);
  if (!me) return { allowed: false, pending: true };
  if (canAll) return { allowed: true, pending: false };
  const isMember = (members.data ?? []).some(
    (m) =>
      m.userId.toLowerCase() === me.id.toLowerCase() ||
      (me.email !== null && m.userId.toLowerCase() === me.email.toLowerCase()),
  );
  return { allowed: me.policies.includes('canChange') && isMember, pending: members.isPending };
}

export function useAddMember(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      unwrap(api.POST('/api/services/{serviceId}/members', { ...path(serviceId), body: { userId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.members(serviceId) }),
  });
}

export function useRemoveMember(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      unwrap(api.DELETE('/api/services/{serviceId}/members/{userId}', { params: { path: { serviceId, userId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.members(serviceId) }),
  });
}

export function useApiKeys(serviceId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.services.apiKeys(serviceId),
    queryFn: () => unwrap(api.GET('/api/services/{serviceId}/apikeys', path(serviceId))),
    enabled,
  });
}

export function useCreateApiKey(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap(api.POST('/api/services/{serviceId}/apikeys', { ...path(serviceId), body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.apiKeys(serviceId) }),
  });
}

export function useRevokeApiKey(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) =>
      unwrap(api.DELETE('/api/services/{serviceId}/apikeys/{keyId}', { params: { path: { serviceId, keyId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.apiKeys(serviceId) }),
  });
}

export const AUDIT_PAGE_SIZE = 50;

/** The audit search's filters (every one optional), as the REST API takes them. */
export type AuditQuery = Omit<AuditSearch, 'serviceId' | 'pageSize' | 'pageToken'>;

export function useAuditLog(serviceId: string, filters: AuditQuery) {
  return useInfiniteQuery({
    queryKey: queryKeys.services.audit(serviceId, filters),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.POST('/api/auditlogs/search', {
          body: { ...filters, serviceId, pageSize: AUDIT_PAGE_SIZE, pageToken: pageParam },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => (page.nextPageToken === '' ? undefined : page.nextPageToken),
  });
}
