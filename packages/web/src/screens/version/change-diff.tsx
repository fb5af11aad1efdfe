import { Code, Table, Text } from '@mantine/core';
import { KeyText } from '../../components/key-text';

/** One value a change request (or a rollout) sets: the key, the value before and the value after. */
export interface DiffRow {
  readonly id: string;
  readonly key: string | null;
  /** The value now; undefined when not known any more (an applied request). */
  readonly before: string | null | undefined;
  readonly after: string | null;
  /** The entry changed since the request was made (or was deleted): applying it would be refused. */
  readonly changedSince?: boolean;
  /** A secret: the server never sends its values back, so neither side is shown. */
  readonly secret?: boolean;
}

function shown(raw: string | null | undefined, secret: boolean) {
  if (secret) return <Text size="sm">•••••• (secret)</Text>;
  if (raw === undefined) return <Text c="dimmed">—</Text>;
  return <Code style={{ overflowWrap: 'anywhere' }}>{raw === null ? 'null' : raw === '' ? '""' : raw}</Code>;
}

interface ChangeDiffProps {
  readonly rows: readonly DiffRow[];
  readonly label: string;
  /** Without the Before column (a rollout's new values: what they replace is the entry's value). */
  readonly afterOnly?: boolean;
  /** The heading of the values set: After, or New value. */
  readonly afterLabel?: string;
}

/** The changes of a change request (or a rollout), one row per key: before → after. */
export function ChangeDiff({ rows, label, afterOnly = false, afterLabel = 'After' }: ChangeDiffProps) {
  return (
    <Table withTableBorder striped aria-label={label} className="rc-stack" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Key</Table.Th>
          {!afterOnly && <Table.Th>Before</Table.Th>}
          <Table.Th>{afterLabel}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.id}>
            <Table.Td ff="monospace" data-full>
              {row.key === null ? <Text c="dimmed">a deleted entry</Text> : <KeyText value={row.key} />}
              {row.changedSince && (
                <Text span c="orange" size="xs" ml="xs">
                  changed since
                </Text>
              )}
            </Table.Td>
            {!afterOnly && (
              <Table.Td data-label="Before" data-full>
                {shown(row.before, row.secret === true)}
              </Table.Td>
            )}
            <Table.Td data-label={afterLabel} data-full>
              {shown(row.after, row.secret === true)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
