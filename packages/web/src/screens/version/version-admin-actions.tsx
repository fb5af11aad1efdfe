import { Button, Group, Stack } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import type { Version } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { VersionFormDialog } from '../service/version-form-dialog';
import { NewEntryDialog } from './new-entry-dialog';
import { ProtectedNote } from './protected-note';
import { useDeleteVersion, useUpdateVersion } from './use-version';

const PROTECTED_NOTE_ID = 'version-protected-note';

/**
 * What only owners (and admins) do on a version page: add an entry, edit or delete the version. A
 * protected version takes no new entry from here (the server refuses it): the button is disabled and
 * a note says why; editing, deleting and unprotecting the version stay open.
 */
export function VersionAdminActions({ serviceId, version }: { serviceId: string; version: Version }) {
  const [open, setOpen] = useState<'entry' | 'edit' | 'delete' | null>(null);
  const update = useUpdateVersion(serviceId, version.id);
  const remove = useDeleteVersion(serviceId, version.id);
  const navigate = useNavigate();
  const close = () => setOpen(null);

  return (
    <Stack gap={6} align="flex-end">
      <Group>
        <Button
          onClick={() => setOpen('entry')}
          disabled={version.protected}
          aria-describedby={version.protected ? PROTECTED_NOTE_ID : undefined}
        >
          New entry
        </Button>
        <Button variant="default" onClick={() => setOpen('edit')}>
          Edit version
        </Button>
        <Button variant="outline" color="red" onClick={() => setOpen('delete')}>
          Delete version
        </Button>
      </Group>
      {version.protected && (
        <ProtectedNote id={PROTECTED_NOTE_ID} maw={420}>
          New keys come from the application registering the version, or once an owner lifts the protection.
        </ProtectedNote>
      )}
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
    </Stack>
  );
}
