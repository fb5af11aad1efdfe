import { Anchor, Breadcrumbs, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { AnchorLink } from '../../components/anchor-link';
import { Outlet, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import type { ServiceRole } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { TabLinks } from '../../components/tab-links';
import { ServiceFormDialog } from '../services/service-form-dialog';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { serviceRoute } from './route';
import { useDeleteService, useService, useServiceAccess, useUpdateService } from './use-service';

/** What the user's role in the service lets them do, in words. */
function roleWords(role: ServiceRole | null): string {
  switch (role) {
    case 'owner':
      return 'You are an owner of this service: you change its values and manage its versions, members and keys.';
    case 'editor':
      return 'You are an editor of this service: you can change its values and review change requests. Owners manage its versions, members and keys.';
    case 'viewer':
      return 'You are a viewer of this service: you can read its values but not change them. An owner can change your role.';
    default:
      return 'You are not a member of this service: you can read its values but not change them. Ask an owner or an admin to add you.';
  }
}

/** A service: its name as the page heading, its details, and the Versions / Members / API keys / Audit log tabs. */
export function ServiceLayout() {
  const { serviceId } = serviceRoute.useParams();
  const service = useService(serviceId);
  const me = useMe();
  const canAll = me.data ? abilitiesOf(me.data).canAll : false;
  const access = useServiceAccess(serviceId, me.data);
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const update = useUpdateService(serviceId);
  const remove = useDeleteService(serviceId);

  if (service.isPending) return <Loader aria-label="Loading the service" />;
  if (service.isError) return <ProblemAlert error={service.error} />;
  const s = service.data;
  const params = { serviceId };

  return (
    <Stack>
      <Breadcrumbs>
        <AnchorLink to="/services">Services</AnchorLink>
        <Text>{s.name}</Text>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{s.name}</Title>
          {s.description && <Text>{s.description}</Text>}
          <Group gap="lg">
            {s.repositoryUrl && (
              <Anchor href={s.repositoryUrl} target="_blank" rel="noreferrer">
                Repository
              </Anchor>
            )}
            {s.contactEmail && <Anchor href={`mailto:${s.contactEmail}`}>{s.contactEmail}</Anchor>}
            <Text size="sm" c="dimmed">
              Service id <code>{s.id}</code>
            </Text>
          </Group>
        </Stack>
        {access.manage && (
          <Group>
            <Button variant="default" onClick={() => setEditing(true)}>
              Edit service
            </Button>
            {canAll && (
              <Button variant="outline" color="red" onClick={() => setDeleting(true)}>
                Delete service
              </Button>
            )}
          </Group>
        )}
      </Group>
      {!canAll && !access.pending && (
        <Text size="sm" c="dimmed">
          {roleWords(access.role)}
        </Text>
      )}
      <TabLinks
        label="Service sections"
        links={[
          { label: 'Versions', to: '/services/$serviceId/versions', params },
          { label: 'Members', to: '/services/$serviceId/members', params },
          { label: 'API keys', to: '/services/$serviceId/api-keys', params },
          { label: 'Webhooks', to: '/services/$serviceId/webhooks', params },
          { label: 'Validators', to: '/services/$serviceId/validators', params },
          { label: 'Audit log', to: '/services/$serviceId/audit', params },
        ]}
      />
      <Outlet />
      <ServiceFormDialog
        opened={editing}
        onClose={() => setEditing(false)}
        title={`Edit ${s.name}`}
        submitLabel="Save service"
        initial={s}
        mutation={update}
        onSaved={() => setEditing(false)}
      />
      <ConfirmDialog
        opened={deleting}
        onClose={() => setDeleting(false)}
        title={`Delete ${s.name}?`}
        confirmLabel="Delete service"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => void navigate({ to: '/services', search: {} }) })}
      >
        The service, all its versions and entries are deleted. Running applications stop receiving changes. The audit
        log keeps the record.
      </ConfirmDialog>
    </Stack>
  );
}
