import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ChangeRequest,
  ChangeRequestFields,
  ChangeRequestStatus,
  RolloutSettings,
} from '@realtime-config/protocol/rest';
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

const ONE_REQUEST = '/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}';

interface RequestPath {
  readonly serviceId: string;
  readonly versionId: string;
  readonly changeRequestId: string;
}

/** Applies an approved request: `{}` sets its values at once, `{ rollout }` rolls them out. */
function applyRequest(path: RequestPath, body: { rollout?: RolloutSettings }): Promise<ChangeRequest> {
  return unwrap(api.POST(`${ONE_REQUEST}/apply`, { params: { path }, body }));
}

/** After a step, taken or refused: the list read again; applied, the histories gain records (the live stream brings the values). */
function useAfterStep(serviceId: string, versionId: string) {
  const refresh = useRefreshRequests(serviceId, versionId);
  const queryClient = useQueryClient();
  return (step: ChangeRequestStep) => {
    void refresh();
    if (step === 'apply') {
      void queryClient.invalidateQueries({ queryKey: [...queryKeys.versions.detail(serviceId, versionId), 'history'] });
    }
  };
}

/** Approve, apply, reject or withdraw one change request; a refusal (403, 409 stale…) refreshes the list too. */
export function useChangeRequestStep(serviceId: string, versionId: string, changeRequestId: string) {
  const afterStep = useAfterStep(serviceId, versionId);
  return useMutation({
    mutationFn: (step: ChangeRequestStep): Promise<ChangeRequest> => {
      const path = { serviceId, versionId, changeRequestId };
      const params = { params: { path } };
      switch (step) {
        case 'approve':
          return unwrap(api.POST(`${ONE_REQUEST}/approve`, params));
        case 'apply':
          return applyRequest(path, {});
        case 'reject':
          return unwrap(api.POST(`${ONE_REQUEST}/reject`, params));
        case 'withdraw':
          return unwrap(api.POST(`${ONE_REQUEST}/withdraw`, params));
      }
    },
    onSettled: (_data, _error, step) => afterStep(step),
  });
}

/**
 * Applies an approved request as a rollout (docs/rollouts.md, "Protected versions"): its approved
 * values reach the instances step by step. The Rollouts panel is read again, so it shows the new one
 * (or, on a refusal, the rollout that holds an entry).
 */
export function useApplyAsRollout(serviceId: string, versionId: string, changeRequestId: string) {
  const afterStep = useAfterStep(serviceId, versionId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (rollout: RolloutSettings) => applyRequest({ serviceId, versionId, changeRequestId }, { rollout }),
    onSettled: () => {
      afterStep('apply');
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions.rollouts(serviceId, versionId), exact: true });
    },
  });
}
