import { Button, Collapse, Group, Paper, ScrollArea, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useElementSize, useMergedRef } from '@mantine/hooks';
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { KeyText } from '../../components/key-text';
import { ProblemAlert } from '../../components/problem-alert';
import { useNarrow } from '../../components/use-narrow';
import { isStale, type PendingChanges } from './pending-changes';

interface PendingTrayProps {
  readonly pending: PendingChanges;
  readonly entriesById: ReadonlyMap<string, Entry>;
  readonly onSave: () => void;
  readonly saving: boolean;
  readonly saveError: unknown;
  /** A protected version: the changes go to review (`Request review…`) instead of being saved. */
  readonly review?: boolean;
  /** `Roll out…` beside Save: the changes reach the instances step by step (not on a protected version). */
  readonly onRollOut?: () => void;
}

function shown(raw: string | null): string {
  if (raw === null) return 'null';
  return raw.length > 80 ? `${raw.slice(0, 77)}…` : raw === '' ? '""' : raw;
}

/**
 * The tray sits over the bottom of the page: the page keeps what has focus (the value being typed)
 * above it, when the tray appears or grows, and when the keyboard moves on (scroll-padding).
 */
function useKeepFocusAboveTray(tray: RefObject<HTMLElement | null>, height: number) {
  useEffect(() => {
    const root = document.documentElement;
    root.style.scrollPaddingBottom = `${height + 16}px`;
    const focused = document.activeElement;
    const trayTop = tray.current?.getBoundingClientRect().top;
    if (trayTop !== undefined && focused instanceof HTMLElement && !tray.current?.contains(focused)) {
      // The whole entry when it fits: its editor, its message and what it was before the edit.
      const row = focused.closest<HTMLElement>('.rc-entry-row');
      const shown = row && row.offsetHeight < trayTop / 2 ? row : focused;
      const hiddenBy = shown.getBoundingClientRect().bottom + 8 - trayTop;
      if (hiddenBy > 0) window.scrollBy({ top: hiddenBy });
    }
    return () => {
      root.style.scrollPaddingBottom = '';
    };
  }, [tray, height]);
}

/**
 * The pending-changes tray: what will change (old → new, per key), flags edits whose entry changed
 * elsewhere, discards one or all, and saves everything as one batch (or rolls it out step by step).
 * On a phone its list starts folded, so the values stay in view.
 */
export function PendingTray(props: PendingTrayProps) {
  const count = props.pending.list.length;
  if (count === 0 && !props.saveError) return null;
  return <Tray {...props} />;
}

function Tray({ pending, entriesById, onSave, saving, saveError, review = false, onRollOut }: PendingTrayProps) {
  const narrow = useNarrow();
  const [open, setOpen] = useState(!narrow);
  const { ref: sizeRef, height } = useElementSize<HTMLElement>();
  const trayRef = useRef<HTMLElement>(null);
  const ref = useMergedRef(sizeRef, trayRef);
  useKeepFocusAboveTray(trayRef, height);
  const count = pending.list.length;
  const invalid = pending.list.filter((c) => c.error !== null);
  const checking = pending.list.some((c) => c.checking);
  const stale = pending.list.filter((c) => isStale(c, entriesById.get(c.entryId)));
  const blocked = count === 0 || invalid.length > 0 || checking;

  return (
    <Paper
      ref={ref}
      component="section"
      aria-labelledby="pending-heading"
      withBorder
      shadow="lg"
      p="md"
      style={{ position: 'sticky', bottom: 0, zIndex: 10 }}
    >
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Title order={2} size="h4" id="pending-heading">
            {count === 1 ? '1 pending change' : `${count} pending changes`}
          </Title>
          <Group gap="xs" justify="flex-end">
            <Button variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
              {open ? 'Hide changes' : 'Show changes'}
            </Button>
            <Button variant="default" onClick={pending.discardAll} disabled={count === 0}>
              Discard all
            </Button>
            {onRollOut && !review && (
              <Button variant="default" onClick={onRollOut} disabled={blocked}>
                Roll out…
              </Button>
            )}
            <Button onClick={onSave} loading={saving} disabled={blocked}>
              {review ? 'Request review…' : count === 1 ? 'Save 1 change' : `Save ${count} changes`}
            </Button>
          </Group>
        </Group>
        {saveError != null && <ProblemAlert error={saveError} />}
        {invalid.length > 0 && (
          <Text size="sm" c="red">
            Fix {invalid.length === 1 ? 'the value' : `${invalid.length} values`} marked in red before{' '}
            {review ? 'requesting review' : 'saving'}.
          </Text>
        )}
        {stale.length > 0 && (
          <Text size="sm" c="orange">
            {stale.length === 1 ? 'One entry was' : `${stale.length} entries were`} changed elsewhere since you edited:
            saving asks which value to keep.
          </Text>
        )}
        <Collapse expanded={open}>
          <ScrollArea.Autosize mah={narrow ? '35vh' : 200}>
            <Table aria-label="Pending changes" verticalSpacing={4} className="rc-stack">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Before</Table.Th>
                  <Table.Th>New</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {pending.list.map((change) => (
                  <Table.Tr key={change.entryId}>
                    <Table.Td ff="monospace" data-full>
                      <KeyText value={change.key} />
                      {isStale(change, entriesById.get(change.entryId)) && (
                        <Text span c="orange" size="xs" ml="xs">
                          changed elsewhere
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ff="monospace" data-label="Before" className="rc-key">
                      {shown(change.baseRaw)}
                    </Table.Td>
                    <Table.Td ff="monospace" c={change.error ? 'red' : undefined} data-label="New" className="rc-key">
                      {shown(change.raw)}
                      {change.error && <Text size="xs">{change.error}</Text>}
                    </Table.Td>
                    <Table.Td>
                      <Button size="compact-xs" variant="subtle" onClick={() => pending.discard(change.entryId)}>
                        Discard<VisuallyHidden> {change.key}</VisuallyHidden>
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
        </Collapse>
      </Stack>
    </Paper>
  );
}
