import { Button, Code, Group, Modal, ScrollArea, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../../api/client';
import { KeyText } from '../../../components/key-text';
import { ProblemAlert } from '../../../components/problem-alert';
import { useNarrow } from '../../../components/use-narrow';

interface ResolveDialogProps {
  readonly serviceId: string;
  readonly versionId: string;
  readonly opened: boolean;
  readonly onClose: () => void;
}

type Resolved = Awaited<ReturnType<typeof resolveFor>>['entries'][number];

function resolveFor(serviceId: string, versionId: string, labels: string, instanceId: string) {
  return unwrap(
    api.GET('/api/configversions/{serviceId}/{versionId}/resolve', {
      params: {
        path: { serviceId, versionId },
        // The server reads the labels as instances send them (its own parser, its own 400 for a bad pair).
        query: { ...(labels ? { labels } : {}), ...(instanceId ? { instanceId } : {}) },
      },
    }),
  );
}

function sourceWords(entry: Resolved): string {
  if (entry.source === 'override') return `override #${(entry.overrideIndex ?? 0) + 1}`;
  if (entry.source === 'rollout') return 'a rollout';
  return 'value';
}

function valueOf(entry: Resolved) {
  if (entry.redacted) return '•••••• (secret)';
  return <Code>{entry.rawValue === null ? 'null' : entry.rawValue === '' ? '""' : entry.rawValue}</Code>;
}

/** `Resolve for labels…`: the value each entry gives an instance with these labels (and id), and where from. */
export function ResolveDialog({ serviceId, versionId, opened, onClose }: ResolveDialogProps) {
  const narrow = useNarrow();
  const [labels, setLabels] = useState('');
  const [instanceId, setInstanceId] = useState('');
  const resolve = useMutation({
    mutationFn: (asked: { labels: string; instanceId: string }) =>
      resolveFor(serviceId, versionId, asked.labels, asked.instanceId),
  });
  const entries = resolve.data?.entries ?? [];
  return (
    <Modal opened={opened} onClose={onClose} title="Resolve for labels" size="xl" fullScreen={narrow}>
      <Stack>
        <Text size="sm" c="dimmed">
          What an instance of the application that declares these labels gets: an override’s value when its labels match
          (the first matching one), the entry’s value otherwise.
        </Text>
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            resolve.mutate({ labels: labels.trim(), instanceId: instanceId.trim() });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Labels"
              description="key=value pairs separated by commas; empty: an instance without labels"
              placeholder="region=eu, tier=gold"
              value={labels}
              onChange={(e) => setLabels(e.currentTarget.value)}
            />
            <TextInput
              label="Instance id"
              description="Optional"
              value={instanceId}
              onChange={(e) => setInstanceId(e.currentTarget.value)}
            />
            <Group>
              <Button type="submit" loading={resolve.isPending}>
                Resolve
              </Button>
            </Group>
          </Stack>
        </form>
        {resolve.isError && <ProblemAlert error={resolve.error} />}
        {resolve.isSuccess && (
          <ScrollArea.Autosize mah={narrow ? undefined : 480}>
            <Table aria-label="Resolved values" withTableBorder>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>From</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map((entry) => (
                  <Table.Tr key={entry.entryId}>
                    <Table.Td ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      <KeyText value={entry.key} />
                    </Table.Td>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{valueOf(entry)}</Table.Td>
                    <Table.Td>{sourceWords(entry)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {entries.length === 0 && <Text size="sm">This version has no entries.</Text>}
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Modal>
  );
}
