import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyScope, AuditSearch, Me, Member, ServiceFields, ServiceRole } from '@realtime-config/protocol/rest';
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

/** What the signed-in user may do to one service, from their policies and their role in it (docs/rest-api.md). */
export interface ServiceAccess {
  /** Still loading the user or the members. */
  readonly pending: boolean;
  /** Their role: every canAll user acts as an owner; null when they are no member. */
  readonly role: ServiceRole | null;
  readonly canAll: boolean;
  /** Set values, restore, import, promote; open, approve, apply and reject change requests (editors, owners). */
  readonly write: boolean;
  /** Update the service; versions, protection, entries' details, members and API keys (owners). */
  readonly manage: boolean;
}

/** Whether a member row names this user (by id or e-mail, without regard to case, as the server matches). */
export function isMe(me: Me, userId: string): boolean {
  const id = userId.toLowerCase();
  return id === me.id.toLowerCase() || (me.email !== null && id === me.email.toLowerCase());
}

/** What a user may do to a service with these members (canAll users act as owners of every service). */
export function accessOf(me: Me, members: readonly Member[]): Omit<ServiceAccess, 'pending'> {
  if (me.policies.includes('canAll')) return { role: 'owner', canAll: true, write: true, manage: true };
  const role = members.find((m) => isMe(me, m.userId))?.role ?? null;
  return { role, canAll: false, write: role === 'editor' || role === 'owner', manage: role === 'owner' };
}

export function useServiceAccess(serviceId: string, me: Me | null | undefined): ServiceAccess {
  const members = useMembers(serviceId);
  if (!me) return { pending: true, role: null, canAll: false, write: false, manage: false };
  const canAll = me.policies.includes('canAll');
  return { pending: !canAll && members.isPending, ...accessOf(me, members.data ?? []) };
}

/** Whether the user may set values of this service: canAll, or an editor or owner of it. */
export function useMayChangeValues(serviceId: string, me: Me | null | undefined) {
  const access = useServiceAccess(serviceId, me);
  return { allowed: access.write, pending: access.pending };
}

export function useAddMember(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { userId: string; role: ServiceRole }) =>
      unwrap(api.POST('/api/services/{serviceId}/members', { ...path(serviceId), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.members(serviceId) }),
  });
}

export function useChangeMemberRole(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: ServiceRole }) =>
      unwrap(
        api.PUT('/api/services/{serviceId}/members/{userId}', {
          params: { path: { serviceId, userId } },
          body: { role },
        }),
      ),
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
    mutationFn: (body: { name: string; scopes: ApiKeyScope[] }) =>
      unwrap(api.POST('/api/services/{serviceId}/apikeys', { ...path(serviceId), body })),
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
