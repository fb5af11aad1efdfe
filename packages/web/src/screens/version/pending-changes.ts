import { checkValue } from '@realtime-config/protocol';
import { useCallback, useMemo, useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';

/** One edit waiting in the tray: the value typed, and the stored value and generation it was based on. */
export interface PendingChange {
  readonly entryId: string;
  readonly key: string;
  readonly baseRaw: string | null;
  readonly baseGeneration: number;
  readonly raw: string | null;
  /** The server's rule for this type, checked as the user typed; null when the value fits. */
  readonly error: string | null;
}

export interface PendingChanges {
  readonly list: readonly PendingChange[];
  get(entryId: string): PendingChange | undefined;
  /** Records an edit; an edit back to the stored value drops the pending change. */
  edit(entry: Entry, raw: string | null): void;
  discard(entryId: string): void;
  discardAll(): void;
  /** Keeps the user's value but bases it on the stored generation now known (Keep mine). */
  rebase(entry: Entry): void;
}

/** Whether the stored entry moved on since the edit was made (changed elsewhere: saving would conflict). */
export function isStale(change: PendingChange, entry: Entry | undefined): boolean {
  return entry !== undefined && entry.generation !== change.baseGeneration;
}

export function usePendingChanges(): PendingChanges {
  const [changes, setChanges] = useState<ReadonlyMap<string, PendingChange>>(new Map());

  const update = useCallback((fn: (next: Map<string, PendingChange>) => void) => {
    setChanges((current) => {
      const next = new Map(current);
      fn(next);
      return next;
    });
  }, []);

  const edit = useCallback(
    (entry: Entry, raw: string | null) =>
      update((next) => {
        const existing = next.get(entry.id);
        const baseRaw = existing?.baseRaw ?? entry.rawValue;
        const baseGeneration = existing?.baseGeneration ?? entry.generation;
        if (raw === baseRaw && baseGeneration === entry.generation) next.delete(entry.id);
        else {
          const error = checkValue(entry.valueType, raw, entry.enumDefinition);
          next.set(entry.id, { entryId: entry.id, key: entry.key, baseRaw, baseGeneration, raw, error });
        }
      }),
    [update],
  );

  const discard = useCallback((entryId: string) => update((next) => next.delete(entryId)), [update]);
  const discardAll = useCallback(() => setChanges(new Map()), []);
  const rebase = useCallback(
    (entry: Entry) =>
      update((next) => {
        const existing = next.get(entry.id);
        if (!existing) return;
        if (existing.raw === entry.rawValue) next.delete(entry.id);
        else next.set(entry.id, { ...existing, baseRaw: entry.rawValue, baseGeneration: entry.generation });
      }),
    [update],
  );

  return useMemo(
    () => ({
      list: [...changes.values()],
      get: (entryId: string) => changes.get(entryId),
      edit,
      discard,
      discardAll,
      rebase,
    }),
    [changes, edit, discard, discardAll, rebase],
  );
}
