import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Entry, EntryMetadata, NewEntry, ValueSet, VersionFields } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export function useVersions(serviceId: string) {
  return useQuery({
    queryKey: queryKeys.versions.list(serviceId),
    queryFn: () => unwrap(api.GET('/api/configversions/{serviceId}', { params: { path: { serviceId } } })),
    // Applications register versions themselves: look again on every visit, and every few seconds
    // while the service has none (its empty state waits for the first registration).
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.length === 0 ? 3000 : false),
  });
}

export function useVersion(serviceId: string, versionId: string) {
  return useQuery({
    queryKey: queryKeys.versions.detail(serviceId, versionId),
    queryFn: () =>
      unwrap(api.GET('/api/configversions/{serviceId}/{versionId}', { params: { path: { serviceId, versionId } } })),
  });
}

export function useCreateVersion(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: VersionFields) =>
      unwrap(api.POST('/api/configversions/{serviceId}', { params: { path: { serviceId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.versions.list(serviceId), exact: true }),
  });
}

export function useUpdateVersion(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: VersionFields) =>
      unwrap(
        api.PUT('/api/configversions/{serviceId}/{versionId}', { params: { path: { serviceId, versionId } }, body }),
      ),
    onSuccess: (version) => {
      queryClient.setQueryData(queryKeys.versions.detail(serviceId, versionId), version);
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions.list(serviceId), exact: true });
    },
  });
}

export function useDeleteVersion(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/api/configversions/{serviceId}/{versionId}', { params: { path: { serviceId, versionId } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.versions.detail(serviceId, versionId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions.list(serviceId), exact: true });
    },
  });
}

export function useEntries(serviceId: string, versionId: string) {
  return useQuery({
    queryKey: queryKeys.versions.entries(serviceId, versionId),
    queryFn: () =>
      unwrap(api.GET('/api/configentries/{serviceId}/{versionId}', { params: { path: { serviceId, versionId } } })),
    // The live stream keeps the list current; a refetch would only repeat what it delivered.
    staleTime: Infinity,
  });
}

/** Puts answered entries into the cached list (a newer generation wins, so a late answer never goes back). */
export function mergeEntries(list: Entry[] | undefined, updated: readonly Entry[]): Entry[] | undefined {
  if (!list) return list;
  const byId = new Map(updated.map((e) => [e.id, e]));
  const merged = list.map((e) => {
    const u = byId.get(e.id);
    byId.delete(e.id);
    return u && u.generation >= e.generation ? u : e;
  });
  return [...merged, ...byId.values()];
}

function useEntryMutation<T>(serviceId: string, versionId: string, call: (vars: T) => Promise<Entry[]>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (entries) => {
      queryClient.setQueryData<Entry[]>(queryKeys.versions.entries(serviceId, versionId), (list) =>
        mergeEntries(list, entries),
      );
    },
  });
}

export function useCreateEntry(serviceId: string, versionId: string) {
  return useEntryMutation(serviceId, versionId, async (body: NewEntry) => [
    await unwrap(
      api.POST('/api/configentries/{serviceId}/{versionId}', { params: { path: { serviceId, versionId } }, body }),
    ),
  ]);
}

export function useSetValues(serviceId: string, versionId: string) {
  return useEntryMutation(serviceId, versionId, (body: ValueSet[]) =>
    unwrap(
      api.PUT('/api/configentries/{serviceId}/{versionId}/set', { params: { path: { serviceId, versionId } }, body }),
    ),
  );
}

export function useUpdateEntry(serviceId: string, versionId: string, entryId: string) {
  return useEntryMutation(serviceId, versionId, async (body: EntryMetadata) => [
    await unwrap(
      api.PUT('/api/configentries/{serviceId}/{versionId}/{entryId}', {
        params: { path: { serviceId, versionId, entryId } },
        body,
      }),
    ),
  ]);
}

export function useDeleteEntry(serviceId: string, versionId: string, entryId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/configentries/{serviceId}/{versionId}/{entryId}', {
          params: { path: { serviceId, versionId, entryId } },
        }),
      ),
    onSuccess: () => {
      queryClient.setQueryData<Entry[]>(queryKeys.versions.entries(serviceId, versionId), (list) =>
        list?.filter((e) => e.id !== entryId),
      );
    },
  });
}

export interface OverridesSet {
  readonly overrides: { labels: Record<string, string>; rawValue: string | null }[];
  readonly generation: number;
}

/** Replaces an entry's overrides by label (docs/targeting.md); the answer is the entry. */
export function useSetOverrides(serviceId: string, versionId: string, entryId: string) {
  return useEntryMutation(serviceId, versionId, async (body: OverridesSet) => [
    await unwrap(
      api.PUT('/api/configentries/{serviceId}/{versionId}/{entryId}/overrides', {
        params: { path: { serviceId, versionId, entryId } },
        body,
      }),
    ),
  ]);
}
