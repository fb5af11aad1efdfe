import { Badge, Button, Group, Loader, NativeSelect, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ChangeRequest, ChangeRequestStatus, Me } from '@realtime-config/protocol/rest';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { isMe, type ServiceAccess } from '../service/use-service';
import { ApplyRolloutDialog } from './apply-rollout-dialog';
import { ChangeDiff } from './change-diff';
import { EditChangeRequestDialog } from './edit-change-request-dialog';
import {
  useChangeRequests,
  useChangeRequestStep,
  useRebaseChangeRequest,
  type ChangeRequestStep,
} from './use-change-requests';

/** The dot of a status badge; its word stays in the text colour (a light badge's green is under 4.5:1 on white). */
const STATUS_COLORS: Record<ChangeRequestStatus, string> = {
  open: 'blue',
  approved: 'green',
  applied: 'teal',
  stale: 'orange',
  rejected: 'red',
  withdrawn: 'gray',
};

const STATUS_WORDS: Record<ChangeRequestStatus, string> = {
  open: 'Waiting for approval.',
  approved: 'Approved: it may be applied.',
  applied: 'Applied.',
  stale:
    'An entry changed since the request was made, so nothing was applied. Its author (or an owner) bases it on the values as they are now, and it is reviewed again.',
  rejected: 'Rejected.',
  withdrawn: 'Withdrawn by its author.',
};

/** `Not closed` (the default) and `All` are read from the whole list; a single status the server filters. */
const FILTERS = [
  { value: 'active', label: 'Not closed' },
  { value: 'all', label: 'All' },
  { value: 'open', label: 'Open' },
  { value: 'approved', label: 'Approved' },
  { value: 'stale', label: 'Stale' },
  { value: 'applied', label: 'Applied' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'withdrawn', label: 'Withdrawn' },
];
const ACTIVE: readonly ChangeRequestStatus[] = ['open', 'approved', 'stale'];

interface SectionProps {
  readonly serviceId: string;
  readonly versionId: string;
  readonly me: Me;
  readonly access: ServiceAccess;
  /** Protected: the section shows even without requests, saying how values change here. */
  readonly isProtected: boolean;
}

/** The version's change requests, newest first, with their diffs and the steps the user may take. */
export function ChangeRequestsSection(props: SectionProps) {
  const [filter, setFilter] = useState('active');
  const serverStatus = filter === 'active' || filter === 'all' ? null : (filter as ChangeRequestStatus);
  const requests = useChangeRequests(props.serviceId, props.versionId, serverStatus);
  const shown = (requests.data ?? []).filter((r) => filter !== 'active' || ACTIVE.includes(r.status));
  // An unprotected version shows the section only while it has requests to act on (none, usually).
  if (!props.isProtected && shown.length === 0 && filter === 'active') return null;

  return (
    <Stack component="section" aria-labelledby="change-requests-heading" gap="sm">
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3" id="change-requests-heading">
          Change requests
        </Title>
        <NativeSelect
          label="Status"
          data={FILTERS}
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          w={{ base: '100%', xs: 180 }}
        />
      </Group>
      {requests.isPending && <Loader aria-label="Loading change requests" />}
      {requests.isError && <ProblemAlert error={requests.error} />}
      {requests.isSuccess && shown.length === 0 && (
        <EmptyState title="No change requests here">
          {props.access.write
            ? 'Edit values below and choose Request review…; another editor or owner approves, then it is applied.'
            : 'Editors propose changes to this version as change requests.'}
        </EmptyState>
      )}
      {shown.map((request) => (
        <ChangeRequestCard key={request.id} request={request} {...props} />
      ))}
    </Stack>
  );
}

export function ChangeRequestCard({
  request,
  serviceId,
  versionId,
  me,
  access,
}: SectionProps & { request: ChangeRequest }) {
  const step = useChangeRequestStep(serviceId, versionId, request.id);
  const rebase = useRebaseChangeRequest(serviceId, versionId, request);
  const busy = step.isPending || rebase.isPending;
  const mine = isMe(me, request.author);
  // Whoever wrote any of it (its author, anyone who edited it) may not approve it.
  const editedByMe = request.editors.some((e) => isMe(me, e));
  const approvedByMe = request.approvals.some((a) => isMe(me, a.userId));
  const closed = request.status === 'applied' || request.status === 'rejected' || request.status === 'withdrawn';
  const [editing, setEditing] = useState(false);
  const [rollingOut, setRollingOut] = useState(false);
  // Every entry it names still exists: a request naming a deleted one can only be withdrawn or rejected.
  const entriesLive = request.changes.every((c) => c.currentGeneration !== null);
  // A secret's requested value never comes back from the server: only an edit (typing it again) sends it anew.
  const hasSecret = request.changes.some((c) => c.isSecret || c.redacted);
  const headingId = `change-request-${request.id}`;
  const run = (s: ChangeRequestStep) => step.mutate(s);
  const button = (s: ChangeRequestStep, label: string, color?: string) => (
    <Button
      size="xs"
      variant={s === 'apply' || s === 'approve' ? 'filled' : 'default'}
      color={color}
      loading={step.isPending && step.variables === s}
      disabled={busy}
      onClick={() => run(s)}
    >
      {label}
    </Button>
  );

  return (
    <Paper component="article" aria-labelledby={headingId} withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start" gap="xs">
          <Stack gap={2}>
            <Group gap="xs">
              <Title order={3} size="h4" id={headingId}>
                {request.title}
              </Title>
              <Badge color={STATUS_COLORS[request.status]} variant="dot">
                {request.status}
              </Badge>
            </Group>
            <Text size="sm" c="dimmed">
              by {request.authorName ?? request.author}, <TimeText iso={request.createdAt} />
              {request.editors.length > 0 && `, edited by ${request.editors.join(', ')}`}
              {' · '}
              {request.approvals.length} of {request.requiredApprovals}{' '}
              {request.requiredApprovals === 1 ? 'approval' : 'approvals'}
              {request.approvals.length > 0 && ` (${request.approvals.map((a) => a.userName ?? a.userId).join(', ')})`}
              {closed && request.closedBy && ` · closed by ${request.closedBy}`}
              {request.rolloutId && ' · applied as a rollout: its progress is under Rollouts'}
            </Text>
          </Stack>
          {!closed && (
            <Group gap="xs">
              {access.write &&
                !mine &&
                !editedByMe &&
                !approvedByMe &&
                request.status === 'open' &&
                button('approve', 'Approve')}
              {access.write && request.status === 'approved' && button('apply', 'Apply')}
              {access.write && request.status === 'approved' && (
                <Button size="xs" variant="default" disabled={busy} onClick={() => setRollingOut(true)}>
                  Apply as rollout…
                </Button>
              )}
              {access.write && button('reject', 'Reject', 'red')}
              {request.status === 'stale' && (mine || access.manage) && entriesLive && !hasSecret && (
                <Button
                  size="xs"
                  loading={rebase.isPending}
                  disabled={busy}
                  onClick={() => rebase.mutate(undefined, { onSuccess: () => step.reset() })}
                >
                  Base on current values
                </Button>
              )}
              {mine && entriesLive && (
                <Button size="xs" variant="default" disabled={busy} onClick={() => setEditing(true)}>
                  Edit
                </Button>
              )}
              {mine && button('withdraw', 'Withdraw')}
            </Group>
          )}
        </Group>
        {request.description && <Text style={{ whiteSpace: 'pre-wrap' }}>{request.description}</Text>}
        <Text size="sm">{STATUS_WORDS[request.status]}</Text>
        {!closed && (mine || editedByMe) && request.status === 'open' && (
          <Text size="sm" c="dimmed">
            {mine
              ? 'Another editor or owner approves it; you cannot approve your own request.'
              : 'You edited this request, so another editor or owner approves it.'}
          </Text>
        )}
        {step.isError && <ProblemAlert error={step.error} />}
        {rebase.isError && <ProblemAlert error={rebase.error} />}
        <ChangeDiff
          label={`Changes of ${request.title}`}
          rows={request.changes.map((c) => ({
            id: c.id,
            key: c.key,
            before: request.status === 'applied' ? undefined : c.currentValue,
            after: c.rawValue,
            changedSince: !closed && c.currentGeneration !== c.generation,
          }))}
        />
      </Stack>
      {access.write && !closed && (
        <ApplyRolloutDialog
          opened={rollingOut}
          onClose={() => setRollingOut(false)}
          serviceId={serviceId}
          versionId={versionId}
          request={request}
        />
      )}
      {mine && !closed && (
        <EditChangeRequestDialog
          opened={editing}
          onClose={() => setEditing(false)}
          serviceId={serviceId}
          versionId={versionId}
          request={request}
        />
      )}
    </Paper>
  );
}
