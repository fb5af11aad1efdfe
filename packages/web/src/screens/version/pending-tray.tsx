import { Button, Collapse, Group, Paper, ScrollArea, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { ProblemAlert } from '../../components/problem-alert';
import { isStale, type PendingChanges } from './pending-changes';

interface PendingTrayProps {
  readonly pending: PendingChanges;
  readonly entriesById: ReadonlyMap<string, Entry>;
  readonly onSave: () => void;
  readonly saving: boolean;
  readonly saveError: unknown;
}

function shown(raw: string | null): string {
  if (raw === null) return 'null';
  return raw.length > 80 ? `${raw.slice(0, 77)}…` : raw === '' ? '""' : raw;
}

/**
 * The pending-changes tray: what will change (old → new, per key), flags edits whose entry changed
 * elsewhere, discards one or all, and saves everything as one batch.
 */
export function PendingTray({ pending, entriesById, onSave, saving, saveError }: PendingTrayProps) {
  const [open, setOpen] = useState(true);
  const count = pending.list.length;
  if (count === 0 && !saveError) return null;
  const invalid = pending.list.filter((c) => c.error !== null);
  const stale = pending.list.filter((c) => isStale(c, entriesById.get(c.entryId)));

  return (
    <Paper
      component="section"
      aria-labelledby="pending-heading"
      withBorder
      shadow="lg"
      p="md"
      style={{ position: 'sticky', bottom: 0, zIndex: 10 }}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4" id="pending-heading">
            {count === 1 ? '1 pending change' : `${count} pending changes`}
          </Title>
          <Group gap="xs">
            <Button variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
              {open ? 'Hide changes' : 'Show changes'}
            </Button>
            <Button variant="default" onClick={pending.discardAll} disabled={count === 0}>
              Discard all
            </Button>
            <Button onClick={onSave} loading={saving} disabled={count === 0 || invalid.length > 0}>
              {count === 1 ? 'Save 1 change' : `Save ${count} changes`}
            </Button>
          </Group>
        </Group>
        {saveError != null && <ProblemAlert error={saveError} />}
        {invalid.length > 0 && (
          <Text size="sm" c="red">
            Fix {invalid.length === 1 ? 'the value' : `${invalid.length} values`} marked in red before saving.
          </Text>
        )}
        {stale.length > 0 && (
          <Text size="sm" c="orange">
            {stale.length === 1 ? 'One entry was' : `${stale.length} entries were`} changed elsewhere since you edited:
            saving asks which value to keep.
          </Text>
        )}
        <Collapse expanded={open}>
          <ScrollArea.Autosize mah={200}>
            <Table aria-label="Pending changes" verticalSpacing={4}>
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
                    <Table.Td ff="monospace">
                      {change.key}
                      {isStale(change, entriesById.get(change.entryId)) && (
                        <Text span c="orange" size="xs" ml="xs">
                          changed elsewhere
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ff="monospace">{shown(change.baseRaw)}</Table.Td>
                    <Table.Td ff="monospace" c={change.error ? 'red' : undefined}>
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
