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
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useMemo, useState } from 'react';
import type { Difference } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { AnchorLink } from '../../components/anchor-link';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { useMayChangeValues, useService } from '../service/use-service';
import { abilitiesOf, useMe } from '../sign-in/use-session';
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
    <Stack gap={2}>
      <Code style={{ wordBreak: 'break-all' }}>{s.value === null ? 'null' : s.value === '' ? '""' : s.value}</Code>
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
  const mayChange = useMayChangeValues(serviceId, me.data);
  // A key only in the base is created in the target when copied: that needs canAll.
  const mayCreate = me.data ? abilitiesOf(me.data).canAll : false;
  const copyable = (d: Difference) =>
    mayChange.allowed && (d.change === 'valueChanged' || (d.change === 'removed' && mayCreate));
  const [kind, setKind] = useState('all');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [copying, setCopying] = useState(false);
  const ready = base !== undefined && target !== undefined && base !== target;
  const comparison = useQuery({
    queryKey: ['services', serviceId, 'compare', base, target],
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
          w={220}
        />
        <Text pb={6} aria-hidden>
          →
        </Text>
        <NativeSelect
          label="Target version"
          data={options}
          value={target ?? ''}
          onChange={(e) => choose('target', e.currentTarget.value)}
          w={220}
        />
        <NativeSelect
          label="Show"
          data={[
            { value: 'all', label: 'every difference' },
            ...Object.entries(CHANGES).map(([value, label]) => ({ value, label })),
          ]}
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value)}
          w={200}
        />
      </Group>
      {!ready && (
        <EmptyState title="Choose two versions">
          The differences appear key by key: added, removed, changed value, type or details.
        </EmptyState>
      )}
      {comparison.isPending && ready && <Loader aria-label="Comparing" />}
      {comparison.isError && <ProblemAlert error={comparison.error} />}
      {comparison.data && (
        <>
          <Group justify="space-between">
            <Text aria-live="polite">
              {comparison.data.differences.length} differing, {comparison.data.unchanged} the same
            </Text>
            {mayChange.allowed && (
              <Button disabled={selected.size === 0} onClick={() => setCopying(true)}>
                Copy selected values →
              </Button>
            )}
          </Group>
          {mayChange.allowed && !mayCreate && onlyInBase.length > 0 && (
            <Text size="sm" c="dimmed">
              Keys only in the base can be copied by someone who may create entries (canAll).
            </Text>
          )}
          <Table withTableBorder striped aria-label={`Differences between ${labelOf(base)} and ${labelOf(target)}`}>
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
                  <Table.Td style={{ wordBreak: 'break-all' }}>{d.key}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{CHANGES[d.change] ?? d.change}</Badge>
                    {d.metadataChanged && d.change !== 'metadataChanged' && (
                      <Text size="xs" c="dimmed">
                        and its details
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{side(d.base)}</Table.Td>
                  <Table.Td>{side(d.target)}</Table.Td>
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
            void comparison.refetch();
          }}
          title={`Copy ${selected.size} value(s) from ${labelOf(base)} into ${labelOf(target)}`}
          serviceId={serviceId}
          versionId={target}
          request={() => ({ kind: 'version', fromVersionId: base, keys: [...selected], createMissing: createsKeys })}
          applyLabel={(n) => `Copy ${n} ${n === 1 ? 'value' : 'values'}`}
        />
      )}
    </Stack>
  );
}
