import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { NewRollout, Rollout, RolloutStatus } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../../api/client';
import { ProblemError } from '../../../api/problem';
import { queryKeys } from '../../../api/query-keys';

/** What a rollout's editor may do to it once it runs, each a POST of its own. */
export type RolloutAction = 'pause' | 'resume' | 'promote' | 'rollback';

const ACTIVE: readonly RolloutStatus[] = ['scheduled', 'running', 'paused', 'baking'];

/** Still running (or about to, or paused): its entries are held until it completes or is rolled back. */
export const isActive = (rollout: Pick<Rollout, 'status'>): boolean => ACTIVE.includes(rollout.status);

/** While one runs, its steps come every few seconds at the fastest: as often as the Instances list. */
const ACTIVE_REFRESH_MS = 2000;
/** Otherwise someone may start one elsewhere (another window, the API, an applied change request). */
const IDLE_REFRESH_MS = 15_000;

/**
 * A version's rollouts, newest first, read again every 2 seconds while one is active, and the entries
 * they hold. When one ends, its entries changed on the server (the new values, or the old ones a
 * generation further on): the entry list is read again, and the entries stay held until it is, so
 * the next edit is based on what the server has.
 */
export function useRollouts(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  const rollouts = useQuery({
    queryKey: queryKeys.versions.rollouts(serviceId, versionId),
    queryFn: () =>
      unwrap(
        api.GET('/api/configversions/{serviceId}/{versionId}/rollouts', {
          params: { path: { serviceId, versionId } },
        }),
      ),
    refetchInterval: (q) => (q.state.data?.some(isActive) ? ACTIVE_REFRESH_MS : IDLE_REFRESH_MS),
    staleTime: 0,
  });
  const list = rollouts.data;
  const active = useMemo(() => (list ?? []).filter(isActive), [list]);
  // Rollouts seen active that ended since, until the entry list is read again.
  const [settling, setSettling] = useState<readonly Rollout[]>([]);
  const seen = useRef<readonly Rollout[] | null>(null);
  useEffect(() => {
    const before = seen.current;
    seen.current = active;
    const ended = (before ?? []).filter((r) => !active.some((a) => a.id === r.id));
    if (ended.length === 0) return;
    setSettling((current) => [...current, ...ended]);
    const key = queryKeys.versions.entries(serviceId, versionId);
    void queryClient
      .refetchQueries({ queryKey: key, exact: true })
      .finally(() => setSettling((current) => current.filter((r) => !ended.includes(r))));
  }, [active, queryClient, serviceId, versionId]);
  const held = useMemo(
    () => new Set([...active, ...settling].flatMap((r) => r.changes.map((c) => c.id))),
    [active, settling],
  );
  return { rollouts, held: held as ReadonlySet<string> };
}

/** Puts a rollout the server answered into the cached list (a new one first). */
function useKeepRollout(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  return (rollout: Rollout) =>
    queryClient.setQueryData<Rollout[]>(queryKeys.versions.rollouts(serviceId, versionId), (list) =>
      list?.some((r) => r.id === rollout.id)
        ? list.map((r) => (r.id === rollout.id ? rollout : r))
        : [rollout, ...(list ?? [])],
    );
}

/**
 * Starts a rollout of values (each with the generation it was edited from). A 409 (an entry changed
 * meanwhile, or is held by another rollout) reads the entries again, so the tray marks what moved on.
 */
export function useCreateRollout(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  const keep = useKeepRollout(serviceId, versionId);
  return useMutation({
    mutationFn: (body: NewRollout) =>
      unwrap(
        api.POST('/api/configversions/{serviceId}/{versionId}/rollouts', {
          params: { path: { serviceId, versionId } },
          body,
        }),
      ),
    onSuccess: keep,
    onError: (error) => {
      if (error instanceof ProblemError && error.status === 409) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.versions.entries(serviceId, versionId), exact: true });
      }
    },
  });
}

/** Pause, resume, promote or roll back one rollout; a refusal (409: it moved on meanwhile) reads the list again. */
export function useRolloutAction(serviceId: string, versionId: string, rolloutId: string) {
  const queryClient = useQueryClient();
  const keep = useKeepRollout(serviceId, versionId);
  return useMutation({
    mutationFn: (action: RolloutAction): Promise<Rollout> => {
      const params = { params: { path: { serviceId, versionId, rolloutId } } };
      const base = '/api/configversions/{serviceId}/{versionId}/rollouts/{rolloutId}';
      switch (action) {
        case 'pause':
          return unwrap(api.POST(`${base}/pause`, params));
        case 'resume':
          return unwrap(api.POST(`${base}/resume`, params));
        case 'promote':
          return unwrap(api.POST(`${base}/promote`, params));
        case 'rollback':
          return unwrap(api.POST(`${base}/rollback`, params));
      }
    },
    onSuccess: keep,
    onError: () =>
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions.rollouts(serviceId, versionId), exact: true }),
  });
}
