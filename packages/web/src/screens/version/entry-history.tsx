import { Button, Code, Group, Loader, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import type { Entry, HistoryItem } from '@realtime-config/protocol/rest';
import { actionWords } from '../../components/plain-words';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { PlanDialog } from './plan-dialog';
import { useEntryHistory } from './use-plans';

function shown(item: HistoryItem) {
  if (item.deleted) return <Text c="dimmed">deleted</Text>;
  // A secret's value is never shown: its fingerprint tells one value from another.
  if (item.redacted) return <Code>{item.fingerprint ? `•••••• ${item.fingerprint.slice(0, 8)}` : 'null'}</Code>;
  return <Code>{item.value === null ? 'null' : item.value === '' ? '""' : item.value}</Code>;
}

/**
 * An entry's history in its drawer, newest first, with "Restore this value" on every earlier value:
 * a dry run of restoring this one key to that moment, then applying it.
 */
export function EntryHistory(props: { serviceId: string; versionId: string; entry: Entry; mayRestore: boolean }) {
  const { serviceId, versionId, entry } = props;
  const history = useEntryHistory(serviceId, versionId, entry.id);
  const [restoring, setRestoring] = useState<HistoryItem | null>(null);
  const items = history.data?.pages.flatMap((p) => p.entities) ?? [];

  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        History
      </Title>
      {history.isPending && <Loader size="sm" aria-label="Loading history" />}
      {history.isError && <ProblemAlert error={history.error} />}
      {items.length > 0 && (
        <Table withTableBorder aria-label={`History of ${entry.key}`} className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Change</Table.Th>
              <Table.Th>Value</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((item, index) => (
              <Table.Tr key={`${item.timestampMicros}-${item.generation}`}>
                <Table.Td>
                  <TimeText iso={item.timestamp} />
                </Table.Td>
                <Table.Td>{actionWords(item.action)}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere', minWidth: '6rem' }} data-full>
                  {shown(item)}
                </Table.Td>
                <Table.Td data-label="By">{item.userName ?? item.userId ?? '—'}</Table.Td>
                <Table.Td data-full>
                  {props.mayRestore && index > 0 && !item.deleted && (
                    <Button size="xs" variant="light" onClick={() => setRestoring(item)}>
                      Restore this value<VisuallyHidden> of {item.timestamp}</VisuallyHidden>
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {history.hasNextPage && (
        <Group>
          <Button
            variant="default"
            size="xs"
            onClick={() => void history.fetchNextPage()}
            loading={history.isFetchingNextPage}
          >
            Load more
          </Button>
        </Group>
      )}
      <PlanDialog
        opened={restoring !== null}
        onClose={() => setRestoring(null)}
        title={`Restore ${entry.key}`}
        serviceId={serviceId}
        versionId={versionId}
        request={() => ({ kind: 'restore', at: restoring?.timestamp ?? '', keys: [entry.key] })}
        applyLabel={() => 'Restore'}
      />
    </Stack>
  );
}
