import { Box, Divider, Text, Title } from '@mantine/core';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { EntryRow } from './entry-row';
import type { PendingChanges } from './pending-changes';

type Row =
  | { readonly kind: 'group'; readonly name: string; readonly description: string | null; readonly count: number }
  | { readonly kind: 'entry'; readonly entry: Entry };

/** Entries grouped by groupName (ungrouped last), each group in key order. */
export function groupRows(entries: readonly Entry[]): Row[] {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    const name = entry.groupName ?? '';
    const list = groups.get(name) ?? [];
    list.push(entry);
    groups.set(name, list);
  }
  const names = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  return names.flatMap((name) => {
    const list = (groups.get(name) ?? []).sort((a, b) => a.key.localeCompare(b.key));
    const description = list.find((e) => e.groupDescription)?.groupDescription ?? null;
    return [
      { kind: 'group' as const, name: name || 'Ungrouped', description, count: list.length },
      ...list.map((entry) => ({ kind: 'entry' as const, entry })),
    ];
  });
}

interface EntryListProps {
  readonly entries: readonly Entry[];
  readonly serviceId: string;
  readonly versionId: string;
  readonly pending: PendingChanges;
  readonly readOnlyReasonId: string | undefined;
  readonly recentlyChanged: ReadonlySet<string>;
  /** The ids of the entries an active rollout holds. */
  readonly rollingOut: ReadonlySet<string>;
}

/**
 * The entries of a version, virtualized against the window's scroll: a 2,000-entry version renders
 * only the rows in view (and a generous margin, so a small version renders whole).
 */
export function EntryList({
  entries,
  serviceId,
  versionId,
  pending,
  readOnlyReasonId,
  recentlyChanged,
  rollingOut,
}: EntryListProps) {
  const rows = useMemo(() => groupRows(entries), [entries]);
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    setScrollMargin(listRef.current?.offsetTop ?? 0);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => (rows[index]?.kind === 'group' ? 64 : 88),
    overscan: 24,
    scrollMargin,
    getItemKey: (index) => {
      const row = rows[index];
      return row?.kind === 'entry' ? row.entry.id : `group:${row?.name ?? index}`;
    },
  });

  return (
    <div ref={listRef} style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const row = rows[item.index];
        if (!row) return null;
        return (
          <Box
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              width: '100%',
              transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
            }}
          >
            {row.kind === 'group' ? (
              <Box pt="md">
                <Title order={2} size="h4">
                  {row.name}{' '}
                  <Text span c="dimmed" size="sm">
                    ({row.count})
                  </Text>
                </Title>
                {row.description && (
                  <Text size="sm" c="dimmed">
                    {row.description}
                  </Text>
                )}
                <Divider mt="xs" />
              </Box>
            ) : (
              <EntryRow
                entry={row.entry}
                serviceId={serviceId}
                versionId={versionId}
                pending={pending.get(row.entry.id)}
                onEdit={pending.edit}
                readOnlyReasonId={readOnlyReasonId}
                justChanged={recentlyChanged.has(row.entry.key)}
                rollingOut={rollingOut.has(row.entry.id)}
              />
            )}
          </Box>
        );
      })}
    </div>
  );
}
