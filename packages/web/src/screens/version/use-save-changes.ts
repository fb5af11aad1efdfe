import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { ProblemError } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';
import type { Conflict } from './conflict-dialog';
import { isStale, type PendingChanges } from './pending-changes';
import { useSetValues } from './use-version';

/**
 * Saves the tray as one batch with the generations the edits were based on. A 409 reloads the
 * entries and turns every edit whose entry moved on into a conflict to resolve.
 */
export function useSaveChanges(
  serviceId: string,
  versionId: string,
  pending: PendingChanges,
  saving: { current: ReadonlyMap<string, string | null> },
  /** Says what was saved ("Saved 2 values"). */
  onSaved: (message: string) => void,
) {
  const queryClient = useQueryClient();
  const setValues = useSetValues(serviceId, versionId);
  const [conflicts, setConflicts] = useState<Conflict[]>([]);

  const save = () => {
    const sent = pending.list;
    if (sent.length === 0) return;
    saving.current = new Map(sent.map((c) => [c.key, c.raw]));
    setValues.mutate(
      sent.map((c) => ({ id: c.entryId, rawValue: c.raw, generation: c.baseGeneration })),
      {
        onSuccess: (updated) => {
          // A secret's answer carries no value to compare with: what was sent is what is stored.
          for (const entry of updated) {
            if (entry.isSecret) pending.discard(entry.id);
            else pending.rebase(entry);
          }
          onSaved(updated.length === 1 ? `Saved ${updated[0]?.key ?? ''}` : `Saved ${updated.length} values`);
        },
        onError: (error) => {
          if (error instanceof ProblemError && error.status === 409) void showConflicts();
        },
        onSettled: () => {
          saving.current = new Map();
        },
      },
    );

    async function showConflicts() {
      const key = queryKeys.versions.entries(serviceId, versionId);
      await queryClient.refetchQueries({ queryKey: key, exact: true });
      const fresh = new Map((queryClient.getQueryData<Entry[]>(key) ?? []).map((e) => [e.id, e]));
      const found = sent
        .filter((c) => !fresh.has(c.entryId) || isStale(c, fresh.get(c.entryId)))
        .map((change) => ({ change, stored: fresh.get(change.entryId) }));
      if (found.length > 0) {
        setConflicts(found);
        setValues.reset();
      }
    }
  };

  const resolve = (conflict: Conflict, keep: 'mine' | 'stored') => {
    if (keep === 'mine' && conflict.stored) pending.rebase(conflict.stored);
    else pending.discard(conflict.change.entryId);
    setConflicts((current) => current.filter((c) => c.change.entryId !== conflict.change.entryId));
  };

  return {
    save,
    saving: setValues.isPending,
    error: setValues.error,
    conflicts,
    keepMine: (c: Conflict) => resolve(c, 'mine'),
    takeStored: (c: Conflict) => resolve(c, 'stored'),
    closeConflicts: () => setConflicts([]),
  };
}
