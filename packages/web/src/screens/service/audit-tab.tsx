import { Badge, Button, Group, Loader, NativeSelect, Stack, Table, Text } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { changeSummary, entityName } from './audit-format';
import { auditTabRoute } from './route';
import { useAuditLog } from './use-service';

const ENTITY_TYPES = ['Service', 'Version', 'Entry', 'Member', 'ApiKey'];

/** The service's audit log, newest first, filtered by entity type (kept in the URL). */
export function AuditTab() {
  const { serviceId } = auditTabRoute.useParams();
  const { entityType } = auditTabRoute.useSearch();
  const navigate = useNavigate({ from: auditTabRoute.fullPath });
  const audit = useAuditLog(serviceId, entityType ?? null);
  const records = audit.data?.pages.flatMap((page) => page.entities) ?? [];

  return (
    <Stack>
      <NativeSelect
        label="Entity type"
        data={[{ value: '', label: 'All' }, ...ENTITY_TYPES.map((t) => ({ value: t, label: t }))]}
        value={entityType ?? ''}
        onChange={(e) => {
          const value = e.currentTarget.value;
          void navigate({ search: value ? { entityType: value } : {}, replace: true });
        }}
        w={220}
      />
      {audit.isPending && <Loader aria-label="Loading the audit log" />}
      {audit.isError && <ProblemAlert error={audit.error} />}
      {audit.isSuccess && records.length === 0 && (
        <EmptyState title="No records">
          Every change to this service, its versions, entries and members appears here.
        </EmptyState>
      )}
      {records.length > 0 && (
        <Table striped aria-label="Audit log" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>User</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>Entity</Table.Th>
              <Table.Th>Changes</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {records.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <TimeText iso={r.timestamp} />
                </Table.Td>
                <Table.Td>{r.userName ?? r.userId ?? '—'}</Table.Td>
                <Table.Td>
                  <Badge variant="light" tt="none">
                    {r.action}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {r.entityType} {entityName(r)}
                </Table.Td>
                <Table.Td>
                  {changeSummary(r).map((line) => (
                    <Text key={line} size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                      {line}
                    </Text>
                  ))}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {audit.hasNextPage && (
        <Group>
          <Button variant="default" onClick={() => void audit.fetchNextPage()} loading={audit.isFetchingNextPage}>
            Load older records
          </Button>
        </Group>
      )}
    </Stack>
  );
}
