import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChangeRequest, ChangeRequestFields, ChangeRequestStatus } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** The steps of a change request after it is opened, each a POST of its own. */
export type ChangeRequestStep = 'approve' | 'apply' | 'reject' | 'withdraw';

/** A version's change requests, newest first; `status` keeps one status (the server filters). */
export function useChangeRequests(serviceId: string, versionId: string, status: ChangeRequestStatus | null) {
  return useQuery({
    queryKey: [...queryKeys.versions.changeRequests(serviceId, versionId), status ?? 'all'],
    queryFn: () =>
      unwrap(
        api.GET('/api/configversions/{serviceId}/{versionId}/changerequests', {
          params: { path: { serviceId, versionId }, query: status ? { status } : {} },
        }),
      ),
    // Others approve and apply in their own windows: look again now and then.
    refetchInterval: 15_000,
  });
}

function useRefreshRequests(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.versions.changeRequests(serviceId, versionId) });
}

/** Opens a change request with value sets (each with the generation it was read at). */
export function useOpenChangeRequest(serviceId: string, versionId: string) {
  const refresh = useRefreshRequests(serviceId, versionId);
  return useMutation({
    mutationFn: (body: ChangeRequestFields) =>
      unwrap(
        api.POST('/api/configversions/{serviceId}/{versionId}/changerequests', {
          params: { path: { serviceId, versionId } },
          body,
        }),
      ),
    onSuccess: refresh,
  });
}

/** Replaces a request's title, description and changes (PUT); a refusal refreshes the list too. */
function useReplaceChangeRequest<T>(
  serviceId: string,
  versionId: string,
  changeRequestId: string,
  bodyOf: (input: T) => ChangeRequestFields,
) {
  const refresh = useRefreshRequests(serviceId, versionId);
  return useMutation({
    mutationFn: (input: T) =>
      unwrap(
        api.PUT('/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}', {
          params: { path: { serviceId, versionId, changeRequestId } },
          body: bodyOf(input),
        }),
      ),
    onSettled: refresh,
  });
}

/**
 * Edits a request (its author, or an owner): title, description and values, each change with the
 * generation it is based on. New values drop every approval; a new title or description keeps them.
 */
export function useEditChangeRequest(serviceId: string, versionId: string, changeRequestId: string) {
  return useReplaceChangeRequest(serviceId, versionId, changeRequestId, (body: ChangeRequestFields) => body);
}

/**
 * Bases a request on the entries as they are now (same values, current generations): a stale request
 * opens again for review, its approvals dropped. Its author or an owner. Not for a request with a
 * secret: the server never sends a secret's requested value back, so it cannot be sent again here.
 */
export function useRebaseChangeRequest(serviceId: string, versionId: string, request: ChangeRequest) {
  return useReplaceChangeRequest(serviceId, versionId, request.id, (): ChangeRequestFields => ({
    title: request.title,
    description: request.description,
    changes: request.changes.map((c) => ({
      id: c.id,
      rawValue: c.rawValue,
      generation: c.currentGeneration ?? c.generation,
    })),
  }));
}

/** Approve, apply, reject or withdraw one change request; a refusal (403, 409 stale…) refreshes the list too. */
export function useChangeRequestStep(serviceId: string, versionId: string, changeRequestId: string) {
  const refresh = useRefreshRequests(serviceId, versionId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (step: ChangeRequestStep): Promise<ChangeRequest> => {
      const params = { params: { path: { serviceId, versionId, changeRequestId } } };
      const base = '/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}';
      switch (step) {
        case 'approve':
          return unwrap(api.POST(`${base}/approve`, params));
        case 'apply':
          return unwrap(api.POST(`${base}/apply`, { ...params, body: {} }));
        case 'reject':
          return unwrap(api.POST(`${base}/reject`, params));
        case 'withdraw':
          return unwrap(api.POST(`${base}/withdraw`, params));
      }
    },
    onSettled: (_data, _error, step) => {
      void refresh();
      // Applied: the histories gain records (the live stream brings the values).
      if (step === 'apply') {
        void queryClient.invalidateQueries({
          queryKey: [...queryKeys.versions.detail(serviceId, versionId), 'history'],
        });
      }
    },
  });
}
