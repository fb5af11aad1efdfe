import { Code, Table, Text } from '@mantine/core';
import { KeyText } from '../../components/key-text';

/** One value a change request sets: the key, the value before and the value after. */
export interface DiffRow {
  readonly id: string;
  readonly key: string | null;
  /** The value now; undefined when not known any more (an applied request). */
  readonly before: string | null | undefined;
  readonly after: string | null;
  /** The entry changed since the request was made (or was deleted): applying it would be refused. */
  readonly changedSince?: boolean;
}

function shown(raw: string | null | undefined) {
  if (raw === undefined) return <Text c="dimmed">—</Text>;
  return <Code style={{ overflowWrap: 'anywhere' }}>{raw === null ? 'null' : raw === '' ? '""' : raw}</Code>;
}

/** The changes of a change request, one row per key: before → after. */
export function ChangeDiff({ rows, label }: { rows: readonly DiffRow[]; label: string }) {
  return (
    <Table withTableBorder striped aria-label={label} className="rc-stack" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Key</Table.Th>
          <Table.Th>Before</Table.Th>
          <Table.Th>After</Table.Th>
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
            <Table.Td data-label="Before" data-full>
              {shown(row.before)}
            </Table.Td>
            <Table.Td data-label="After" data-full>
              {shown(row.after)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
