import { Button, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { AnchorLink } from '../../components/anchor-link';
import { useState } from 'react';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { useMe } from '../sign-in/use-session';
import { useCreateVersion, useVersions } from '../version/use-version';
import { versionsTabRoute } from './route';
import { SdkSnippet } from './sdk-snippet';
import { useServiceAccess } from './use-service';
import { VersionFormDialog } from './version-form-dialog';

export function VersionsTab() {
  const { serviceId } = versionsTabRoute.useParams();
  const versions = useVersions(serviceId);
  const me = useMe();
  const manage = useServiceAccess(serviceId, me.data).manage;
  const [creating, setCreating] = useState(false);
  const create = useCreateVersion(serviceId);

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          A version holds the entries one release of the application reads.
        </Text>
        {manage && <Button onClick={() => setCreating(true)}>New version</Button>}
      </Group>
      {versions.isPending && <Loader aria-label="Loading versions" />}
      {versions.isError && <ProblemAlert error={versions.error} />}
      {versions.data?.length === 0 && (
        <EmptyState title="No versions yet">
          <SdkSnippet serviceId={serviceId} />
        </EmptyState>
      )}
      {versions.data && versions.data.length > 0 && (
        <Table striped highlightOnHover aria-label="Versions" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Th>Description</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {versions.data.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>
                  <AnchorLink to="/services/$serviceId/versions/$versionId" params={{ serviceId, versionId: v.id }}>
                    {v.versionLabel}
                  </AnchorLink>
                </Table.Td>
                <Table.Td data-full>{v.description ?? ''}</Table.Td>
                <Table.Td data-label="Created">
                  <TimeText iso={v.createdAt} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <VersionFormDialog
        opened={creating}
        onClose={() => setCreating(false)}
        title="New version"
        submitLabel="Create"
        mutation={create}
        onSaved={() => setCreating(false)}
        startFrom={versions.data ?? []}
      />
    </Stack>
  );
}
