import { Badge, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { Entry } from '@realtime-config/protocol/rest';
import { useMemo, useState } from 'react';
import { ProblemError } from '../../../api/problem';
import { ProblemAlert } from '../../../components/problem-alert';
import { StatusNote } from '../../../components/status-note';
import { useSchemaErrors } from '../../../rules/use-schema-errors';
import { useSetOverrides } from '../use-version';
import {
  draftOf,
  labelsProblem,
  moved,
  newDraft,
  overridesBody,
  sameAsStored,
  valueProblem,
  type DraftOverride,
} from './override-draft';
import { OverrideRow } from './override-row';

/** The server takes at most this many overrides per entry (docs/targeting.md). */
const MAX_OVERRIDES = 50;

const FIRST_MATCH =
  'An instance whose labels contain all of an override’s labels gets its value instead of the entry’s. The first match from the top wins: put the narrow ones first.';

interface OverridesSectionProps {
  readonly serviceId: string;
  readonly versionId: string;
  readonly entry: Entry;
  /** Editors of the service on a version that is not protected; everyone else sees the list. */
  readonly mayEdit: boolean;
}

/** An entry's overrides by label in its details: a list for viewers, an editor for editors. */
export function OverridesSection(props: OverridesSectionProps) {
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Overrides
      </Title>
      <Text size="sm" c="dimmed">
        {FIRST_MATCH}
      </Text>
      {props.mayEdit ? <OverridesEditor {...props} /> : <OverridesList entry={props.entry} />}
    </Stack>
  );
}

function shownValue(entry: Entry, raw: string | null) {
  if (entry.isSecret) return '•••••• (secret)';
  return <Code>{raw === null ? 'null' : raw === '' ? '""' : raw}</Code>;
}

function LabelChips({ labels }: { labels: Readonly<Record<string, string>> }) {
  return (
    <Group gap={4}>
      {Object.entries(labels).map(([k, v]) => (
        <Badge key={k} variant="outline" tt="none" ff="monospace">
          {k}={v}
        </Badge>
      ))}
    </Group>
  );
}

/** The stored overrides, read-only. */
export function OverridesList({ entry }: { entry: Entry }) {
  if (entry.overrides.length === 0) return <Text size="sm">No overrides: every instance gets the entry’s value.</Text>;
  return (
    <Table withTableBorder aria-label="Overrides">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={40}>#</Table.Th>
          <Table.Th>Labels</Table.Th>
          <Table.Th>Value</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {entry.overrides.map((o, i) => (
          <Table.Tr key={i}>
            <Table.Td>{i + 1}</Table.Td>
            <Table.Td>
              <LabelChips labels={o.labels} />
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{shownValue(entry, o.rawValue)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function OverridesEditor({ serviceId, versionId, entry }: OverridesSectionProps) {
  const save = useSetOverrides(serviceId, versionId, entry.id);
  const [draft, setDraft] = useState(() => ({ rows: draftOf(entry), generation: entry.generation }));
  const dirty = !sameAsStored(draft.rows, entry);
  // Changed elsewhere while nothing is edited here: show the stored list (derived state, set during render).
  if (!dirty && draft.generation !== entry.generation) setDraft({ rows: draftOf(entry), generation: entry.generation });
  const stale = dirty && draft.generation !== entry.generation;
  const setRows = (rows: DraftOverride[]) => {
    setDraft((d) => ({ ...d, rows }));
    if (save.isSuccess || save.isError) save.reset();
  };

  const problems = draft.rows.map((row) => ({
    labels: labelsProblem(row.labels),
    value: valueProblem(entry, row.raw),
  }));
  const schemaErrors = useSchemaErrors(
    useMemo(
      () =>
        entry.isSecret || entry.schema === null
          ? []
          : draft.rows.map((row) => ({
              id: String(row.id),
              schema: entry.schema,
              valueType: entry.valueType,
              rawValue: row.raw ?? null,
            })),
      [draft.rows, entry.isSecret, entry.schema, entry.valueType],
    ),
  );
  const valueError = (row: DraftOverride, i: number) => problems[i]?.value ?? schemaErrors.get(String(row.id));
  const invalid = draft.rows.some((row, i) => problems[i]?.labels || valueError(row, i) !== null);

  const submit = () =>
    save.mutate(
      { overrides: overridesBody(draft.rows), generation: draft.generation },
      { onSuccess: ([updated]) => updated && setDraft({ rows: draftOf(updated), generation: updated.generation }) },
    );
  const conflict = save.error instanceof ProblemError && save.error.status === 409;

  return (
    <Stack gap="sm">
      {draft.rows.length === 0 && <Text size="sm">No overrides: every instance gets the entry’s value.</Text>}
      {draft.rows.map((row, i) => (
        <OverrideRow
          key={row.id}
          entry={entry}
          row={row}
          index={i}
          count={draft.rows.length}
          labelsError={problems[i]?.labels ?? null}
          valueError={valueError(row, i)}
          disabled={save.isPending}
          onChange={(next) => setRows(draft.rows.map((r) => (r.id === row.id ? next : r)))}
          onMove={(by) => setRows(moved(draft.rows, i, by))}
          onRemove={() => setRows(draft.rows.filter((r) => r.id !== row.id))}
        />
      ))}
      {stale && (
        <Text size="sm" c="orange.9" role="status">
          This entry changed elsewhere since you started editing its overrides. Saving asks the server, which refuses if
          they changed; Discard edits shows the stored ones.
        </Text>
      )}
      {save.isError && <ProblemAlert error={save.error} />}
      {conflict && (
        <Text size="sm">
          Someone changed this entry after you opened it. Discard edits to see the stored overrides.
        </Text>
      )}
      <StatusNote text={save.isSuccess && !dirty ? 'Overrides saved.' : null} />
      <Group>
        <Button
          variant="default"
          onClick={() => setRows([...draft.rows, newDraft()])}
          disabled={save.isPending || draft.rows.length >= MAX_OVERRIDES}
        >
          Add override
        </Button>
        <Button onClick={submit} loading={save.isPending} disabled={!dirty || invalid}>
          Save overrides
        </Button>
        {dirty && (
          <Button
            variant="subtle"
            onClick={() => {
              save.reset();
              setDraft({ rows: draftOf(entry), generation: entry.generation });
            }}
          >
            Discard edits
          </Button>
        )}
      </Group>
    </Stack>
  );
}
