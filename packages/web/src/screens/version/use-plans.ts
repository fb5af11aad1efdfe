import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConfigFileFormat, PlanOutcome, PromoteRequest, RestoreRequest } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const HISTORY_PAGE = 20;

/** An entry's changes, newest first, a page at a time. */
export function useEntryHistory(serviceId: string, versionId: string, entryId: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.versions.history(serviceId, versionId, entryId),
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/configentries/{serviceId}/{versionId}/{entryId}/history', {
          params: {
            path: { serviceId, versionId, entryId },
            query: { pageSize: String(HISTORY_PAGE), ...(pageParam ? { pageToken: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (page) => page.nextPageToken || undefined,
  });
}

/** What a plan is about: put keys back as they were `at`, or take values from a file or another version. */
export type PlanRequest =
  | ({ readonly kind: 'restore' } & Pick<RestoreRequest, 'at' | 'keys'>)
  | {
      readonly kind: 'file';
      readonly format: ConfigFileFormat;
      readonly content: string;
      readonly createMissing: boolean;
    }
  | ({
      readonly kind: 'version';
      /** Create the keys the target lacks (needs canAll). */
      readonly createMissing: boolean;
    } & PromoteRequest);

const CONTENT_TYPES: Record<ConfigFileFormat, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  env: 'text/plain',
};

/** Asks the server for a plan: its dry run (basedOn absent) or applying exactly that dry run (basedOn given). */
function requestPlan(serviceId: string, versionId: string, plan: PlanRequest, basedOn?: string): Promise<PlanOutcome> {
  const path = { serviceId, versionId };
  if (plan.kind === 'restore') {
    return unwrap(
      api.POST('/api/configentries/{serviceId}/{versionId}/restore', {
        params: { path },
        body: {
          at: plan.at,
          ...(plan.keys ? { keys: plan.keys } : {}),
          dryRun: basedOn === undefined,
          ...(basedOn !== undefined ? { basedOn } : {}),
        },
      }),
    );
  }
  const query = {
    dryRun: basedOn === undefined ? ('true' as const) : ('false' as const),
    ...(basedOn !== undefined ? { basedOn } : {}),
    ...(plan.kind === 'file' ? { format: plan.format } : {}),
    createMissing: plan.createMissing ? ('true' as const) : ('false' as const),
  };
  const url = '/api/configversions/{serviceId}/{versionId}/import';
  return unwrap(
    plan.kind === 'file'
      ? // A file goes as it is, with its format's content type.
        api.POST(url, {
          params: { path, query },
          body: plan.content,
          bodySerializer: (file) => file,
          headers: { 'content-type': CONTENT_TYPES[plan.format] },
        })
      : api.POST(url, { params: { path, query }, body: { fromVersionId: plan.fromVersionId, keys: plan.keys } }),
  );
}

/**
 * A dry run, then applying exactly it: `preview` answers what would change (nothing changes), `apply`
 * sends the preview's basedOn token, so the server refuses (409) when anything changed in between.
 */
export function usePlan(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  const preview = useMutation({
    mutationFn: (plan: PlanRequest) => requestPlan(serviceId, versionId, plan),
  });
  const apply = useMutation({
    mutationFn: ({ plan, basedOn }: { plan: PlanRequest; basedOn: string }) =>
      requestPlan(serviceId, versionId, plan, basedOn),
    // The live stream brings the new values; the histories gain a record.
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: [...queryKeys.versions.detail(serviceId, versionId), 'history'] }),
  });
  return { preview, apply };
}
