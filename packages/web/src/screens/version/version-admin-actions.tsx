import { Button, Group } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import type { Version } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { VersionFormDialog } from '../service/version-form-dialog';
import { NewEntryDialog } from './new-entry-dialog';
import { useDeleteVersion, useUpdateVersion } from './use-version';

/** What only owners (and admins) do on a version page: add an entry, edit or delete the version. */
export function VersionAdminActions({ serviceId, version }: { serviceId: string; version: Version }) {
  const [open, setOpen] = useState<'entry' | 'edit' | 'delete' | null>(null);
  const update = useUpdateVersion(serviceId, version.id);
  const remove = useDeleteVersion(serviceId, version.id);
  const navigate = useNavigate();
  const close = () => setOpen(null);

  return (
    <Group>
      <Button onClick={() => setOpen('entry')}>New entry</Button>
      <Button variant="default" onClick={() => setOpen('edit')}>
        Edit version
      </Button>
      <Button variant="outline" color="red" onClick={() => setOpen('delete')}>
        Delete version
      </Button>
      <NewEntryDialog serviceId={serviceId} versionId={version.id} opened={open === 'entry'} onClose={close} />
      <VersionFormDialog
        opened={open === 'edit'}
        onClose={close}
        title={`Edit version ${version.versionLabel}`}
        submitLabel="Save version"
        initial={version}
        mutation={update}
        onSaved={close}
      />
      <ConfirmDialog
        opened={open === 'delete'}
        onClose={() => {
          close();
          remove.reset();
        }}
        title={`Delete version ${version.versionLabel}?`}
        confirmLabel="Delete version"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => void navigate({ to: '/services/$serviceId/versions', params: { serviceId } }),
          })
        }
      >
        All entries of this version are deleted; applications subscribed to it are told every key was removed.
      </ConfirmDialog>
    </Group>
  );
}
