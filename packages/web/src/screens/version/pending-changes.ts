import { checkValue } from '@realtime-config/protocol';
import { useCallback, useMemo, useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { schemaError } from '../../rules/schema-check';

/** One edit waiting in the tray: the value typed, and the stored value and generation it was based on. */
export interface PendingChange {
  readonly entryId: string;
  readonly key: string;
  readonly baseRaw: string | null;
  readonly baseGeneration: number;
  readonly raw: string | null;
  /**
   * The server's rule for this type, or the rules of the entry's schema the value breaks, checked as
   * the user typed; null when the value fits.
   */
  readonly error: string | null;
  /** The value is still being checked against the entry's schema (a moment): not to be saved yet. */
  readonly checking: boolean;
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

  /** The schema's answer for a value, kept if the value is still the one typed (a later edit asks again). */
  const checkSchema = useCallback(
    (entry: Entry, raw: string) => {
      const settle = (error: string | null) =>
        update((next) => {
          const change = next.get(entry.id);
          if (change?.raw === raw && change.checking) next.set(entry.id, { ...change, error, checking: false });
        });
      // A checker that fails to answer leaves the value to the server, which checks every write.
      schemaError(entry.schema, entry.valueType, raw).then(settle, () => settle(null));
    },
    [update],
  );

  const edit = useCallback(
    (entry: Entry, raw: string | null) => {
      const error = checkValue(entry.valueType, raw, entry.enumDefinition);
      const checking = error === null && entry.schema !== null && raw !== null;
      update((next) => {
        const existing = next.get(entry.id);
        const baseRaw = existing?.baseRaw ?? entry.rawValue;
        const baseGeneration = existing?.baseGeneration ?? entry.generation;
        if (raw === baseRaw && baseGeneration === entry.generation) next.delete(entry.id);
        else next.set(entry.id, { entryId: entry.id, key: entry.key, baseRaw, baseGeneration, raw, error, checking });
      });
      if (checking && raw !== null) checkSchema(entry, raw);
    },
    [update, checkSchema],
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
