import { Badge, Button, Group, Loader, NativeSelect, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { EmptyState } from '../../components/empty-state';
import { KeyText } from '../../components/key-text';
import { actionWords, entityTypeWords } from '../../components/plain-words';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { useNarrow } from '../../components/use-narrow';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { useVersions } from '../version/use-version';
import { changeSummary, entityName } from './audit-format';
import { auditTabRoute, type AuditFilters } from './route';
import { useAuditLog, type AuditQuery } from './use-service';

const ENTITY_TYPES = ['Service', 'Version', 'Entry', 'Member', 'ApiKey', 'ChangeRequest', 'Webhook', 'Rollout'];
const ACTIONS = [
  'Created',
  'Updated',
  'Deleted',
  'ValueSet',
  'Restored',
  'Imported',
  'Promoted',
  'MemberAdded',
  'MemberRemoved',
  'Approved',
  'Applied',
  'Rejected',
  'Withdrawn',
  'Revealed',
  'SecretRotated',
  'RolloutCreated',
  'RolloutStepped',
  'RolloutPaused',
  'RolloutResumed',
  'RolloutCompleted',
  'RolloutRolledBack',
];

/** A datetime-local value (the user's time) as an instant; `to` takes in its whole minute. */
function instant(local: string | undefined, end: boolean): string | null {
  if (!local) return null;
  const time = new Date(local).getTime();
  if (Number.isNaN(time)) return null;
  return new Date(time + (end && local.length <= 16 ? 59_999 : 0)).toISOString();
}

function queryOf(filters: AuditFilters): AuditQuery {
  return {
    entityType: filters.entityType ?? null,
    versionId: filters.versionId ?? null,
    userId: filters.userId ?? null,
    action: filters.action ?? null,
    from: instant(filters.from, false),
    to: instant(filters.to, true),
  };
}

/** Users to suggest in the User filter: the Local accounts an admin may list. */
function useUserSuggestions(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.users,
    queryFn: () => unwrap(api.GET('/api/users')),
    enabled,
  });
}

/**
 * The service's audit log, newest first: filtered by entity type, version, user, action and time
 * range (kept in the address). Entry records name their version: versions often share their keys.
 */
export function AuditTab() {
  const { serviceId } = auditTabRoute.useParams();
  const filters = auditTabRoute.useSearch();
  const navigate = useNavigate({ from: auditTabRoute.fullPath });
  const query = useMemo(() => queryOf(filters), [filters]);
  const audit = useAuditLog(serviceId, query);
  const versions = useVersions(serviceId);
  const me = useMe();
  const abilities = me.data ? abilitiesOf(me.data) : null;
  const users = useUserSuggestions(abilities?.canAll === true && abilities.isLocal);
  const records = audit.data?.pages.flatMap((page) => page.entities) ?? [];

  const [userText, setUserText] = useState(filters.userId ?? '');
  const [user] = useDebouncedValue(userText.trim(), 400);
  const set = (name: keyof AuditFilters, value: string) =>
    void navigate({ search: (s) => ({ ...s, [name]: value || undefined }), replace: true });
  useEffect(() => {
    if (user !== (filters.userId ?? '')) set('userId', user);
  }, [user]); // eslint-disable-line react-hooks/exhaustive-deps

  const seenUsers = [
    ...new Set([
      ...(users.data ?? []).map((u) => u.username),
      ...records.flatMap((r) => (r.userId && !r.userId.startsWith('apikey:') ? [r.userId] : [])),
    ]),
  ].sort();
  const filtered = Object.values(filters).some(Boolean);
  const narrow = useNarrow();
  // On a phone the filters beyond entity type and version fold away until asked for.
  const [moreShown, setMoreShown] = useState(false);
  const more = [filters.userId, filters.action, filters.from, filters.to].filter(Boolean).length;
  const showMore = !narrow || moreShown;

  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm" verticalSpacing="xs" maw={900}>
        <NativeSelect
          label="Entity type"
          data={[{ value: '', label: 'All' }, ...ENTITY_TYPES.map((t) => ({ value: t, label: entityTypeWords(t) }))]}
          value={filters.entityType ?? ''}
          onChange={(e) => set('entityType', e.currentTarget.value)}
        />
        <NativeSelect
          label="Version"
          data={[
            { value: '', label: 'All versions' },
            ...(versions.data ?? []).map((v) => ({ value: v.id, label: v.versionLabel })),
            // A version deleted since still filters by the id in the address.
            ...(filters.versionId && versions.data && !versions.data.some((v) => v.id === filters.versionId)
              ? [{ value: filters.versionId, label: 'A deleted version' }]
              : []),
          ]}
          value={filters.versionId ?? ''}
          onChange={(e) => set('versionId', e.currentTarget.value)}
        />
        {showMore && (
          <>
            <TextInput
              label="User"
              placeholder="Username or id"
              list="audit-users"
              autoComplete="off"
              value={userText}
              onChange={(e) => setUserText(e.currentTarget.value)}
            />
            <NativeSelect
              label="Action"
              data={[{ value: '', label: 'All' }, ...ACTIONS.map((a) => ({ value: a, label: actionWords(a) }))]}
              value={filters.action ?? ''}
              onChange={(e) => set('action', e.currentTarget.value)}
            />
            <TextInput
              label="From (your time)"
              type="datetime-local"
              value={filters.from ?? ''}
              onChange={(e) => set('from', e.currentTarget.value)}
            />
            <TextInput
              label="To (included)"
              type="datetime-local"
              value={filters.to ?? ''}
              onChange={(e) => set('to', e.currentTarget.value)}
            />
          </>
        )}
      </SimpleGrid>
      {narrow && (
        <Group>
          <Button variant="default" size="compact-sm" onClick={() => setMoreShown((m) => !m)} aria-expanded={showMore}>
            {showMore ? 'Fewer filters' : `More filters${more > 0 ? ` (${more} set)` : ''}`}
          </Button>
        </Group>
      )}
      <datalist id="audit-users">
        {seenUsers.map((u) => (
          <option key={u} value={u} />
        ))}
      </datalist>
      {filtered && (
        <Group>
          <Button
            variant="subtle"
            size="compact-sm"
            onClick={() => {
              setUserText('');
              void navigate({ search: {}, replace: true });
            }}
          >
            Clear filters
          </Button>
        </Group>
      )}
      {audit.isPending && <Loader aria-label="Loading the audit log" />}
      {audit.isError && <ProblemAlert error={audit.error} />}
      {audit.isSuccess && records.length === 0 && (
        <EmptyState title={filtered ? 'No record matches these filters' : 'No records'}>
          {filtered
            ? 'Try fewer filters or a longer time range.'
            : 'Every change to this service, its versions, entries and members appears here.'}
        </EmptyState>
      )}
      {records.length > 0 && (
        <Table striped aria-label="Audit log" verticalSpacing="xs" className="rc-stack">
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
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <TimeText iso={r.timestamp} />
                </Table.Td>
                <Table.Td>{r.userName ?? r.userId ?? '—'}</Table.Td>
                <Table.Td>
                  <Badge variant="light" tt="none" style={{ overflow: 'visible' }}>
                    {actionWords(r.action)}
                  </Badge>
                </Table.Td>
                <Table.Td data-full>
                  {entityTypeWords(r.entityType)}{' '}
                  {r.entityType === 'Entry' ? <KeyText value={entityName(r)} /> : entityName(r)}
                  {r.versionId && (
                    <Text size="xs" c="dimmed">
                      in version {r.versionLabel ?? 'deleted since'}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td data-full>
                  {changeSummary(r).map((line) => (
                    <Text key={line} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
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
