import { Badge, Code, Table, Text } from '@mantine/core';
import type { PlanOutcome } from '@realtime-config/protocol/rest';

const ACTION_LABELS: Record<string, string> = {
  set: 'set',
  create: 'create',
  delete: 'delete',
  recreate: 'recreate (new type)',
};

function value(side: { value: string | null } | null) {
  if (side === null) return <Text c="dimmed">—</Text>;
  return <Code>{side.value === null ? 'null' : side.value === '' ? '""' : side.value}</Code>;
}

/** What a dry run would change (or what was applied): one row per key, current → after. */
export function PlanView({ plan, caption }: { plan: PlanOutcome; caption: string }) {
  if (plan.changes.length === 0) {
    return <Text>Nothing to change: all {plan.unchanged} keys already have these values.</Text>;
  }
  return (
    <Table withTableBorder striped aria-label={caption}>
      <Table.Caption>
        {plan.changes.length} to change, {plan.unchanged} unchanged
      </Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Key</Table.Th>
          <Table.Th>Action</Table.Th>
          <Table.Th>Now</Table.Th>
          <Table.Th>After</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {plan.changes.map((c) => (
          <Table.Tr key={c.key}>
            <Table.Td style={{ wordBreak: 'break-all' }}>{c.key}</Table.Td>
            <Table.Td>
              <Badge variant="light" color={c.action === 'delete' ? 'red' : 'blue'}>
                {ACTION_LABELS[c.action] ?? c.action}
              </Badge>
            </Table.Td>
            <Table.Td style={{ wordBreak: 'break-all' }}>{value(c.current)}</Table.Td>
            <Table.Td style={{ wordBreak: 'break-all' }}>{value(c.next)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
