import {
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Code,
  Group,
  Loader,
  NativeSelect,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useMemo, useRef, useState } from 'react';
import type { Difference } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { AnchorLink } from '../../components/anchor-link';
import { EmptyState } from '../../components/empty-state';
import { KeyText } from '../../components/key-text';
import { count } from '../../components/plain-words';
import { ProblemAlert } from '../../components/problem-alert';
import { useServiceAccess, useService } from '../service/use-service';
import { useMe } from '../sign-in/use-session';
import { PlanDialog } from '../version/plan-dialog';
import { useVersions } from '../version/use-version';
import { compareRoute } from './route';

const CHANGES: Record<string, string> = {
  added: 'only in target',
  removed: 'only in base',
  valueChanged: 'value differs',
  typeChanged: 'type differs',
  metadataChanged: 'details differ',
};

function side(s: Difference['base']) {
  if (!s) return <Text c="dimmed">—</Text>;
  return (
    <Stack gap={2} align="flex-start">
      <Code style={{ overflowWrap: 'anywhere' }}>{s.value === null ? 'null' : s.value === '' ? '""' : s.value}</Code>
      <Text size="xs" c="dimmed">
        {s.valueTypeName}
      </Text>
    </Stack>
  );
}

/** Two versions key by key; values of the base can be copied into the target after a previewed plan. */
export function ComparePage() {
  const { serviceId } = compareRoute.useParams();
  const { base, target } = compareRoute.useSearch();
  const navigate = useNavigate({ from: compareRoute.fullPath });
  const service = useService(serviceId);
  const versions = useVersions(serviceId);
  const me = useMe();
  const access = useServiceAccess(serviceId, me.data);
  const mayChange = { allowed: access.write };
  // A key only in the base is created in the target when copied: that needs an owner.
  const mayCreate = access.manage;
  const copyable = (d: Difference) =>
    mayChange.allowed && (d.change === 'valueChanged' || (d.change === 'removed' && mayCreate));
  const [kind, setKind] = useState('all');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [copying, setCopying] = useState(false);
  const copied = useRef(false);
  const queryClient = useQueryClient();
  const ready = base !== undefined && target !== undefined && base !== target;
  const comparisonKey = ['services', serviceId, 'compare', base, target];
  const comparison = useQuery({
    queryKey: comparisonKey,
    enabled: ready,
    queryFn: () =>
      unwrap(
        api.GET('/api/configversions/{serviceId}/compare', {
          params: { path: { serviceId }, query: { base: base ?? '', target: target ?? '' } },
        }),
      ),
  });
  const shown = useMemo(
    () => (comparison.data?.differences ?? []).filter((d) => kind === 'all' || d.change === kind),
    [comparison.data, kind],
  );
  const onlyInBase = (comparison.data?.differences ?? []).filter((d) => d.change === 'removed');
  const createsKeys = onlyInBase.some((d) => selected.has(d.key));
  const selectable = shown.filter(copyable);
  const allSelected = selectable.length > 0 && selectable.every((d) => selected.has(d.key));
  const someSelected = selectable.some((d) => selected.has(d.key));
  const selectAll = (on: boolean) => {
    const next = new Set(selected);
    for (const d of selectable) {
      if (on) next.add(d.key);
      else next.delete(d.key);
    }
    setSelected(next);
  };
  const labelOf = (id: string | undefined) => versions.data?.find((v) => v.id === id)?.versionLabel ?? '…';
  const choose = (which: 'base' | 'target', id: string) => {
    setSelected(new Set());
    void navigate({ search: (s) => ({ ...s, [which]: id || undefined }), replace: true });
  };
  const options = [
    { value: '', label: 'Choose a version' },
    ...(versions.data ?? []).map((v) => ({ value: v.id, label: v.versionLabel })),
  ];

  return (
    <Stack gap="md">
      <Breadcrumbs>
        <AnchorLink to="/services">Services</AnchorLink>
        <AnchorLink to="/services/$serviceId/versions" params={{ serviceId }}>
          {service.data?.name ?? '…'}
        </AnchorLink>
        <Text>Compare</Text>
      </Breadcrumbs>
      <Title order={1}>Compare versions</Title>
      <Group align="flex-end">
        <NativeSelect
          label="Base version"
          data={options}
          value={base ?? ''}
          onChange={(e) => choose('base', e.currentTarget.value)}
          w={{ base: '100%', xs: 220 }}
        />
        <Text pb={6} aria-hidden visibleFrom="xs">
          →
        </Text>
        <NativeSelect
          label="Target version"
          data={options}
          value={target ?? ''}
          onChange={(e) => choose('target', e.currentTarget.value)}
          w={{ base: '100%', xs: 220 }}
        />
        <NativeSelect
          label="Show"
          data={[
            { value: 'all', label: 'every difference' },
            ...Object.entries(CHANGES).map(([value, label]) => ({ value, label })),
          ]}
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value)}
          w={{ base: '100%', xs: 200 }}
        />
      </Group>
      {base !== undefined && base === target && (
        <EmptyState title="The same version twice">
          Choose another version as the target to see what differs.
        </EmptyState>
      )}
      {!ready && base !== target && (
        <EmptyState title="Choose two versions">
          The differences appear key by key: added, removed, changed value, type or details.
        </EmptyState>
      )}
      {comparison.isPending && ready && <Loader aria-label="Comparing" />}
      {comparison.isError && <ProblemAlert error={comparison.error} />}
      {comparison.data && ready && comparison.data.differences.length === 0 && (
        <EmptyState title={`${labelOf(base)} and ${labelOf(target)} are identical`}>
          {`All ${count(comparison.data.unchanged, 'key')} have the same values, types and details in both versions.`}
        </EmptyState>
      )}
      {comparison.data && ready && comparison.data.differences.length > 0 && (
        <>
          <Group justify="space-between">
            <Text aria-live="polite">
              {comparison.data.differences.length} differing, {comparison.data.unchanged} the same
            </Text>
            {mayChange.allowed && (
              <Group gap="md">
                {selectable.length > 0 && (
                  <Checkbox
                    label="Select all"
                    checked={allSelected}
                    indeterminate={someSelected && !allSelected}
                    onChange={(e) => selectAll(e.currentTarget.checked)}
                  />
                )}
                <Button disabled={selected.size === 0} onClick={() => setCopying(true)}>
                  Copy selected values →
                </Button>
              </Group>
            )}
          </Group>
          {mayChange.allowed && !mayCreate && onlyInBase.length > 0 && (
            <Text size="sm" c="dimmed">
              Keys only in the base can be copied by an owner: copying them creates entries in the target.
            </Text>
          )}
          <Table
            withTableBorder
            striped
            aria-label={`Differences between ${labelOf(base)} and ${labelOf(target)}`}
            className="rc-stack"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>Copy</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Difference</Table.Th>
                <Table.Th>{labelOf(base)} (base)</Table.Th>
                <Table.Th>{labelOf(target)} (target)</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((d) => (
                <Table.Tr key={d.key}>
                  <Table.Td>
                    {copyable(d) && (
                      <Checkbox
                        aria-label={`Copy ${d.key}`}
                        checked={selected.has(d.key)}
                        onChange={(e) => {
                          const next = new Set(selected);
                          if (e.currentTarget.checked) next.add(d.key);
                          else next.delete(d.key);
                          setSelected(next);
                        }}
                      />
                    )}
                  </Table.Td>
                  <Table.Td fw={600}>
                    <KeyText value={d.key} />
                  </Table.Td>
                  <Table.Td data-full>
                    <Badge variant="light">{CHANGES[d.change] ?? d.change}</Badge>
                    {d.metadataChanged && d.change !== 'metadataChanged' && (
                      <Text size="xs" c="dimmed">
                        and its details
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td data-label={`${labelOf(base)} (base)`} data-full>
                    {side(d.base)}
                  </Table.Td>
                  <Table.Td data-label={`${labelOf(target)} (target)`} data-full>
                    {side(d.target)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
      {ready && (
        <PlanDialog
          opened={copying}
          onClose={() => {
            setCopying(false);
            // What was copied is no longer ticked (nor, mostly, different).
            if (copied.current) setSelected(new Set());
            copied.current = false;
          }}
          // The comparison behind the dialog shows the copied values at once.
          onApplied={() => {
            copied.current = true;
            void queryClient.invalidateQueries({ queryKey: comparisonKey });
          }}
          title={`Copy ${count(selected.size, 'value')} from ${labelOf(base)} into ${labelOf(target)}`}
          serviceId={serviceId}
          versionId={target}
          request={() => ({ kind: 'version', fromVersionId: base, keys: [...selected], createMissing: createsKeys })}
          applyLabel={(n) => `Copy ${n} ${n === 1 ? 'value' : 'values'}`}
        />
      )}
    </Stack>
  );
}
