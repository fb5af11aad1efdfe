import {
  Badge,
  Breadcrumbs,
  Button,
  Group,
  Loader,
  Stack,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { AnchorLink } from '../../components/anchor-link';
import { Outlet, useNavigate } from '@tanstack/react-router';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { useReadyMark } from '../../components/ready-mark';
import { StatusNote, useStatusNote } from '../../components/status-note';
import { useService, useServiceAccess } from '../service/use-service';
import { useMe } from '../sign-in/use-session';
import { ChangeRequestsSection } from './change-requests';
import { ConflictDialog } from './conflict-dialog';
import { EntryList } from './entry-list';
import { InstancesSection } from './instances-section';
import { ResolveDialog } from './overrides';
import { PendingTray } from './pending-tray';
import { ProtectionSwitch } from './protection-switch';
import { ReviewDialog } from './review-dialog';
import { RolloutDialog, RolloutsSection, useRollouts } from './rollouts';
import { usePendingChanges } from './pending-changes';
import { versionRoute } from './route';
import { useLiveEntries } from './use-live-entries';
import { useSaveChanges } from './use-save-changes';
import { useEntries, useVersion } from './use-version';
import { VersionAdminActions } from './version-admin-actions';
import { VersionTransferActions } from './version-transfer-actions';

const READ_ONLY_ID = 'values-read-only-reason';

function matches(query: string) {
  const q = query.toLowerCase();
  return (e: { key: string; name: string; description: string | null }) =>
    e.key.toLowerCase().includes(q) ||
    e.name.toLowerCase().includes(q) ||
    (e.description ?? '').toLowerCase().includes(q);
}

/** A version: its entries grouped and searchable, typed editors, the pending tray, conflicts and live changes. */
export function VersionPage() {
  const { serviceId, versionId } = versionRoute.useParams();
  const { q = '' } = versionRoute.useSearch();
  const navigate = useNavigate({ from: versionRoute.fullPath });
  const service = useService(serviceId);
  const version = useVersion(serviceId, versionId);
  const entries = useEntries(serviceId, versionId);
  const me = useMe();
  const access = useServiceAccess(serviceId, me.data);
  const manage = access.manage;
  const [reviewing, setReviewing] = useState(false);
  const [resolving, setResolving] = useState(false);
  const [rollingOutDialog, setRollingOutDialog] = useState(false);
  const pending = usePendingChanges();
  const live = useLiveEntries(serviceId, versionId, entries.data);
  const note = useStatusNote();
  const saver = useSaveChanges(serviceId, versionId, pending, live.saving, note.show);
  const { rollouts, held: rollingOut } = useRollouts(serviceId, versionId);

  const [text, setText] = useState(q);
  const [debounced] = useDebouncedValue(text.trim(), 300);
  useEffect(() => {
    if (debounced !== q) void navigate({ search: debounced ? { q: debounced } : {}, replace: true });
  }, [debounced]); // eslint-disable-line react-hooks/exhaustive-deps
  const filter = useDeferredValue(text.trim());

  const all = useMemo(() => entries.data ?? [], [entries.data]);
  const shown = useMemo(() => (filter ? all.filter(matches(filter)) : all), [all, filter]);
  const entriesById = useMemo(() => new Map(all.map((e) => [e.id, e])), [all]);
  useReadyMark('rc:version-ready', entries.isSuccess);

  // Leaving with unsaved edits asks first.
  useEffect(() => {
    if (pending.list.length === 0) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [pending.list.length]);

  if (version.isError) return <ProblemAlert error={version.error} />;
  const label = version.data?.versionLabel ?? '…';
  const isProtected = version.data?.protected ?? false;
  const readOnlyReason =
    access.pending || access.write
      ? undefined
      : access.role === 'viewer'
        ? 'You are a viewer of this service, so its values are read-only for you. An owner can make you an editor under Members.'
        : 'You are not a member of this service, so its values are read-only for you. An owner or an admin can add you under Members.';

  return (
    <Stack gap="md">
      <Breadcrumbs>
        <AnchorLink to="/services">Services</AnchorLink>
        <AnchorLink to="/services/$serviceId/versions" params={{ serviceId }}>
          {service.data?.name ?? '…'}
        </AnchorLink>
        <Text>{label}</Text>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="sm">
            <Title order={1}>{label}</Title>
            <Badge color={live.status === 'live' ? 'green' : 'gray'} variant="dot" aria-live="polite">
              {live.status === 'live' ? 'Live' : live.status === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
            </Badge>
            {version.data && <ProtectionSwitch serviceId={serviceId} version={version.data} manage={manage} />}
          </Group>
          {version.data?.description && <Text c="dimmed">{version.data.description}</Text>}
          <StatusNote text={note.text} />
        </Stack>
        {manage && version.data && <VersionAdminActions serviceId={serviceId} version={version.data} />}
      </Group>
      {version.data && (
        <VersionTransferActions
          serviceId={serviceId}
          version={version.data}
          mayCreate={manage}
          mayChange={access.write}
        />
      )}
      {me.data && (
        <ChangeRequestsSection
          serviceId={serviceId}
          versionId={versionId}
          me={me.data}
          access={access}
          isProtected={isProtected}
        />
      )}
      {readOnlyReason && (
        <Text id={READ_ONLY_ID} c="dimmed" size="sm">
          {readOnlyReason}
        </Text>
      )}
      <Group align="flex-end">
        <TextInput
          label="Search entries"
          placeholder="Key, name or description"
          type="search"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          w={{ base: '100%', sm: 360 }}
        />
        {entries.data && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {filter
              ? `${shown.length} of ${all.length} ${all.length === 1 ? 'entry' : 'entries'}`
              : `${all.length} ${all.length === 1 ? 'entry' : 'entries'}`}
          </Text>
        )}
        <Button variant="default" onClick={() => setResolving(true)}>
          Resolve for labels…
        </Button>
      </Group>
      <ResolveDialog
        serviceId={serviceId}
        versionId={versionId}
        opened={resolving}
        onClose={() => setResolving(false)}
      />
      <VisuallyHidden aria-live="polite">{live.announcement}</VisuallyHidden>
      {entries.isPending && <Loader aria-label="Loading entries" />}
      {entries.isError && <ProblemAlert error={entries.error} />}
      {entries.isSuccess && all.length === 0 && (
        <EmptyState title="No entries yet">
          {manage && !isProtected
            ? 'Applications register their entries when they connect with the SDK; you can also add one with New entry.'
            : 'Entries appear when the application registers this version with the SDK.'}
        </EmptyState>
      )}
      {entries.isSuccess && all.length > 0 && shown.length === 0 && (
        <EmptyState title={`No entry matches “${filter}”`}>Search looks at keys, names and descriptions.</EmptyState>
      )}
      <EntryList
        entries={shown}
        serviceId={serviceId}
        versionId={versionId}
        pending={pending}
        readOnlyReasonId={readOnlyReason ? READ_ONLY_ID : undefined}
        recentlyChanged={live.recentlyChanged}
        rollingOut={rollingOut}
      />
      <PendingTray
        pending={pending}
        entriesById={entriesById}
        onSave={isProtected ? () => setReviewing(true) : saver.save}
        saving={saver.saving}
        saveError={saver.error}
        review={isProtected}
        onRollOut={isProtected ? undefined : () => setRollingOutDialog(true)}
      />
      <ReviewDialog
        opened={reviewing}
        onClose={() => setReviewing(false)}
        serviceId={serviceId}
        versionId={versionId}
        values={pending.list.map((c) => ({
          id: c.entryId,
          key: c.key,
          before: c.baseRaw,
          after: c.raw,
          generation: c.baseGeneration,
        }))}
        onOpened={(request) => {
          setReviewing(false);
          pending.discardAll();
          note.show(`Change request “${request.title}” opened`);
        }}
      />
      <RolloutDialog
        opened={rollingOutDialog}
        onClose={() => setRollingOutDialog(false)}
        serviceId={serviceId}
        versionId={versionId}
        changes={pending.list}
        entriesById={entriesById}
        onStarted={(rollout) => {
          setRollingOutDialog(false);
          pending.discardAll();
          const what =
            rollout.changes.length === 1 ? (rollout.changes[0]?.key ?? '') : `${rollout.changes.length} values`;
          note.show(`Rollout of ${what} ${rollout.status === 'scheduled' ? 'scheduled' : 'started'}`);
        }}
      />
      <RolloutsSection serviceId={serviceId} versionId={versionId} rollouts={rollouts} mayAct={access.write} />
      {version.data && <InstancesSection serviceId={serviceId} versionId={versionId} />}
      <ConflictDialog
        conflicts={saver.conflicts}
        onKeepMine={saver.keepMine}
        onUseStored={saver.takeStored}
        onClose={saver.closeConflicts}
      />
      <Outlet />
    </Stack>
  );
}
