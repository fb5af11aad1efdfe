import { Badge, Code, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';

/** How often the list is read again: the server's own list is at most a few seconds late. */
const REFRESH_MS = 2000;
const HEADING_ID = 'instances-heading';

function useInstances(serviceId: string, versionId: string) {
  return useQuery({
    queryKey: queryKeys.versions.instances(serviceId, versionId),
    queryFn: () =>
      unwrap(
        api.GET('/api/configversions/{serviceId}/{versionId}/instances', {
          params: { path: { serviceId, versionId } },
        }),
      ),
    refetchInterval: REFRESH_MS,
    staleTime: 0,
  });
}

function Labels({ labels }: { labels: Record<string, string> }) {
  const pairs = Object.entries(labels);
  if (pairs.length === 0) return <>—</>;
  return (
    <Group gap={4}>
      {pairs.map(([key, value]) => (
        <Code key={key}>
          {key}={value}
        </Code>
      ))}
    </Group>
  );
}

/**
 * Who is connected to the version: every open change stream of an application (the SDK, `watch`)
 * on every server instance, whether each has the newest change, and, while a rollout runs, whether
 * it is in it; consoles like this one are not instances and are left out by the server. Read again
 * every few seconds.
 */
export function InstancesSection({ serviceId, versionId }: { serviceId: string; versionId: string }) {
  const instances = useInstances(serviceId, versionId);
  const data = instances.data;
  // While a rollout runs, whether each instance is in it (gets its new values at the current step).
  const rollout = data?.instances.some((i) => i.rollout !== null) ?? false;
  return (
    <Stack component="section" aria-labelledby={HEADING_ID} gap="xs">
      <Group gap="sm" align="baseline">
        <Title order={2} size="h3" id={HEADING_ID}>
          Instances
        </Title>
        {data && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {data.upToDate} of {data.total} up to date
          </Text>
        )}
      </Group>
      {instances.isPending && <Loader size="sm" aria-label="Loading instances" />}
      {instances.isError && <ProblemAlert error={instances.error} />}
      {data && data.total === 0 && (
        <Text size="sm" c="dimmed">
          No instance is connected. Applications appear here while their SDK holds the change stream open.
        </Text>
      )}
      {data && data.total > 0 && (
        <Table striped aria-labelledby={HEADING_ID} className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Instance</Table.Th>
              <Table.Th>SDK</Table.Th>
              <Table.Th>Labels</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Connected since</Table.Th>
              <Table.Th>Last change sent</Table.Th>
              <Table.Th>State</Table.Th>
              {rollout && <Table.Th>Rollout</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.instances.map((i) => (
              <Table.Tr key={`${i.serverInstance} ${i.connectedAt} ${i.instanceId ?? ''} ${i.address ?? ''}`}>
                <Table.Td data-label="Instance">
                  <Text size="sm">{i.instanceId ?? 'Unnamed'}</Text>
                  {i.userAgent && (
                    <Text size="xs" c="dimmed">
                      {i.userAgent}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td data-label="SDK">{i.sdk ?? '—'}</Table.Td>
                <Table.Td data-label="Labels">
                  <Labels labels={i.labels} />
                </Table.Td>
                <Table.Td data-label="Address">{i.address ?? '—'}</Table.Td>
                <Table.Td data-label="Connected since">
                  <TimeText iso={i.connectedAt} />
                </Table.Td>
                <Table.Td data-label="Last change sent">
                  <TimeText iso={i.lastEventTimestamp} />
                </Table.Td>
                <Table.Td data-label="State">
                  <Badge color={i.upToDate ? 'green' : 'orange'} variant="dot" miw="max-content">
                    {i.upToDate ? 'Up to date' : 'Behind'}
                  </Badge>
                </Table.Td>
                {rollout && (
                  <Table.Td data-label="Rollout">{i.rollout === null ? '—' : i.rollout.in ? 'In' : 'Out'}</Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {data && data.instances.length < data.total && (
        // The server lists the oldest streams only: the counts above cover every one.
        <Text size="sm" c="dimmed">
          The {data.instances.length} oldest of {data.total} are listed.
        </Text>
      )}
    </Stack>
  );
}
