import type { SubscriptionEvent_ConfigEvent } from '@realtime-config/protocol';
import { microsFromTimestamp } from '@realtime-config/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { queryKeys } from '../../api/query-keys';
import { isoToMicros, useLiveVersion, type LiveStatus } from '../../live/use-live-version';

const HIGHLIGHT_MS = 2500;

function isoOf(event: SubscriptionEvent_ConfigEvent): string | undefined {
  if (!event.timestamp) return undefined;
  const us = microsFromTimestamp(event.timestamp);
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z`;
}

export interface LiveEntries {
  readonly status: LiveStatus;
  /** Keys changed elsewhere in the last moments, for a brief highlight. */
  readonly recentlyChanged: ReadonlySet<string>;
  /** The last announcement for screen readers ("Payments:Mode changed elsewhere"). */
  readonly announcement: string;
  /** Values this page is saving right now: their own events are not "changed elsewhere". */
  readonly saving: { current: ReadonlyMap<string, string | null> };
}

/**
 * Applies the version's change stream to the cached entry list: values and generations in place,
 * unknown keys, metadata changes and deletions through a refetch of the list.
 */
export function useLiveEntries(
  serviceId: string,
  versionId: string,
  entries: readonly Entry[] | undefined,
): LiveEntries {
  const queryClient = useQueryClient();
  const [recentlyChanged, setRecentlyChanged] = useState<ReadonlySet<string>>(new Set());
  const [announcement, setAnnouncement] = useState('');
  const saving = useRef<ReadonlyMap<string, string | null>>(new Map());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const loaded = entries !== undefined;
  const since = useMemo(
    () => (entries ? Math.max(1, ...entries.map((e) => isoToMicros(e.updatedAt))) : undefined),
    // Only the first load decides where the stream starts; later it resumes from its own last event.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [loaded],
  );

  const onEvents = useCallback(
    (events: readonly SubscriptionEvent_ConfigEvent[]) => {
      const key = queryKeys.versions.entries(serviceId, versionId);
      const changed: string[] = [];
      let refetch = false;
      queryClient.setQueryData<Entry[]>(key, (list) => {
        if (!list) return list;
        const byKey = new Map(list.map((e) => [e.key, e]));
        for (const event of events) {
          const entry = byKey.get(event.key);
          if (!entry) {
            refetch ||= event.value !== undefined;
            continue;
          }
          if (event.generation <= entry.generation) continue;
          // A secret's value is never kept in the page (a console of a canReveal user may receive
          // it on the stream): the list is read again, redacted, with its new fingerprint.
          if (entry.isSecret) {
            refetch = true;
            byKey.set(event.key, {
              ...entry,
              generation: event.generation,
              updatedAt: isoOf(event) ?? entry.updatedAt,
            });
            if (!(saving.current.has(event.key) && saving.current.get(event.key) === (event.value ?? null))) {
              changed.push(event.key);
            }
            continue;
          }
          if (event.value === undefined || event.value === entry.rawValue) refetch = true;
          if (event.value === undefined) byKey.delete(event.key);
          else
            byKey.set(event.key, {
              ...entry,
              rawValue: event.value,
              generation: event.generation,
              updatedAt: isoOf(event) ?? entry.updatedAt,
            });
          const ours = saving.current.has(event.key) && saving.current.get(event.key) === (event.value ?? null);
          if (!ours) changed.push(event.key);
        }
        return list.flatMap((e) => {
          const next = byKey.get(e.key);
          return next && next.id === e.id ? [next] : [];
        });
      });
      if (refetch) void queryClient.invalidateQueries({ queryKey: key, exact: true });
      if (changed.length === 0) return;
      setRecentlyChanged((current) => new Set([...current, ...changed]));
      setAnnouncement(
        changed.length === 1 ? `${changed[0]} changed elsewhere` : `${changed.length} entries changed elsewhere`,
      );
      const timer = setTimeout(() => {
        timers.current.delete(timer);
        setRecentlyChanged((current) => new Set([...current].filter((k) => !changed.includes(k))));
      }, HIGHLIGHT_MS);
      timers.current.add(timer);
    },
    [queryClient, serviceId, versionId],
  );

  const status = useLiveVersion(serviceId, versionId, since, onEvents);
  return { status, recentlyChanged, announcement, saving };
}
