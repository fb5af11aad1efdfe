import { Alert, Badge, Code, List, Stack, Table, Text } from '@mantine/core';
import { describeViolations } from '@realtime-config/protocol';
import type { PlanOutcome } from '@realtime-config/protocol/rest';
import { KeyText } from '../../components/key-text';
import { count } from '../../components/plain-words';

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

/** Whether a value of the plan breaks its entry's schema: applying it would be refused. */
export function breaksRules(plan: PlanOutcome): boolean {
  return plan.changes.some((c) => c.violations.length > 0);
}

/**
 * What a dry run would change (Now → After), or what was applied (Before → After): one row per key,
 * a value that breaks its entry's schema marked with the rules, and the validators that would refuse.
 */
export function PlanView({ plan, caption }: { plan: PlanOutcome; caption: string }) {
  if (plan.changes.length === 0) {
    return <Text>Nothing to change: all {count(plan.unchanged, 'key')} already have these values.</Text>;
  }
  const refusals = plan.validators.filter((v) => !v.passed);
  return (
    <Stack gap="xs">
      {breaksRules(plan) && (
        <Text size="sm" c="red">
          Values marked in red break their entry&apos;s schema: applying them is refused.
        </Text>
      )}
      {refusals.length > 0 && (
        <Alert color="red" variant="light" title="A validator would refuse these changes">
          <List size="sm" aria-label="Validator answers">
            {refusals.map((v) => (
              <List.Item key={v.id}>
                {v.url}: {v.message}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <ChangesTable plan={plan} caption={caption} />
    </Stack>
  );
}

function ChangesTable({ plan, caption }: { plan: PlanOutcome; caption: string }) {
  const current = plan.applied ? 'Before' : 'Now';
  return (
    <Table withTableBorder striped aria-label={caption} className="rc-stack">
      <Table.Caption>
        {plan.applied
          ? `${count(plan.changes.length, 'key')} changed, ${plan.unchanged} unchanged`
          : `${count(plan.changes.length, 'key')} to change, ${plan.unchanged} unchanged`}
      </Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Key</Table.Th>
          <Table.Th>Action</Table.Th>
          <Table.Th>{current}</Table.Th>
          <Table.Th>After</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {plan.changes.map((c) => (
          <Table.Tr key={c.key}>
            <Table.Td>
              <KeyText value={c.key} />
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={c.action === 'delete' ? 'red' : 'blue'}>
                {ACTION_LABELS[c.action] ?? c.action}
              </Badge>
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }} data-label={current} data-full>
              {value(c.current)}
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }} data-label="After" data-full>
              {value(c.next)}
              {c.violations.length > 0 && (
                <Text size="xs" c="red">
                  {describeViolations(c.violations)}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
