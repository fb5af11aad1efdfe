import { Code, Loader, Stack, Text, TextInput } from '@mantine/core';
import { checkValue } from '@realtime-config/protocol';
import { useMemo, useState } from 'react';
import type { ChangeRequest, Entry } from '@realtime-config/protocol/rest';
import { ProblemError } from '../../api/problem';
import { FormDialog } from '../../components/form-dialog';
import { KeyText } from '../../components/key-text';
import { useSchemaErrors } from '../../rules/use-schema-errors';
import { CHANGE_REQUEST_FIELDS, ChangeRequestText, changeRequestText } from './change-request-text';
import { ValueEditor } from './editors/value-editor';
import { useEditChangeRequest } from './use-change-requests';
import { useEntries } from './use-version';

type Change = ChangeRequest['changes'][number];

interface EditChangeRequestDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly serviceId: string;
  readonly versionId: string;
  readonly request: ChangeRequest;
}

/** A secret's requested value never comes back from the server: undefined until it is typed again. */
type Values = ReadonlyMap<string, string | null | undefined>;

function initialValues(request: ChangeRequest): Values {
  return new Map(request.changes.map((c) => [c.id, c.isSecret || c.redacted ? undefined : c.rawValue]));
}

function shown(raw: string | null) {
  return <Code>{raw === null ? 'null' : raw === '' ? '""' : raw}</Code>;
}

/** Why a requested value cannot be sent as it is, or undefined. */
function problemOf(change: Change, entry: Entry | undefined, value: string | null | undefined): string | undefined {
  if (value === undefined) return 'Type the requested value again: a secret’s value is not shown.';
  return entry ? (checkValue(entry.valueType, value, entry.enumDefinition) ?? undefined) : undefined;
}

/**
 * `Edit` of a change request by its author: its title, description and the values it sets, each
 * with the entry's own editor. The changes keep the generations they were based on (a stale
 * request is based on the entries as they are now). New values drop every approval; a new title
 * or description keeps them.
 */
export function EditChangeRequestDialog(props: EditChangeRequestDialogProps) {
  const { request } = props;
  const edit = useEditChangeRequest(props.serviceId, props.versionId, request.id);
  const entries = useEntries(props.serviceId, props.versionId);
  const byId = useMemo(() => new Map((entries.data ?? []).map((e) => [e.id, e])), [entries.data]);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [values, setValues] = useState<Values>(new Map());
  const [tried, setTried] = useState(false);
  const fieldError = (field: string) => (edit.error instanceof ProblemError ? edit.error.fieldError(field) : undefined);
  const typed = request.changes.map((c) => problemOf(c, byId.get(c.id), values.get(c.id)));
  const schemaErrors = useSchemaErrors(
    request.changes.flatMap((c, index) => {
      const entry = byId.get(c.id);
      const value = values.get(c.id);
      return entry && value !== undefined && typed[index] === undefined
        ? [{ id: c.id, schema: entry.schema, valueType: entry.valueType, rawValue: value }]
        : [];
    }),
  );
  // The type rule first, then the entry's schema; a value still being checked waits (null: not sent yet).
  const problems = request.changes.map((c, index) => typed[index] ?? schemaErrors.get(c.id) ?? undefined);
  const checking = [...schemaErrors.values()].some((e) => e === undefined);

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title={`Edit ${request.title}`}
      submitLabel="Save request"
      size="lg"
      mutation={edit}
      fields={CHANGE_REQUEST_FIELDS}
      onOpen={() => {
        setTitle(request.title);
        setDescription(request.description ?? '');
        setValues(initialValues(request));
        setTried(false);
      }}
      onSubmit={() => {
        setTried(true);
        if (title.trim() === '' || checking || problems.some((p) => p !== undefined)) return;
        edit.mutate(
          {
            ...changeRequestText(title, description),
            changes: request.changes.map((c) => ({
              id: c.id,
              rawValue: values.get(c.id) ?? null,
              generation: request.status === 'stale' ? (c.currentGeneration ?? c.generation) : c.generation,
            })),
          },
          { onSuccess: props.onClose },
        );
      }}
    >
      <Text size="sm">
        {request.approvals.length > 0
          ? 'New values drop the approvals it has, and it is reviewed again; a new title or description keeps them.'
          : 'Another editor or owner reviews the request as it is after your edit.'}
      </Text>
      <ChangeRequestText
        title={title}
        description={description}
        onTitle={setTitle}
        onDescription={setDescription}
        titleMissing={tried && title.trim() === ''}
        fieldError={fieldError}
      />
      <Stack gap="sm" role="group" aria-label="Requested values">
        <Text fw={600} size="sm">
          Requested values
        </Text>
        {entries.isPending && <Loader size="sm" aria-label="Loading entries" />}
        {request.changes.map((c, index) => {
          const entry = byId.get(c.id);
          const key = c.key ?? entry?.key ?? c.id;
          const value = values.get(c.id);
          const problem = problems[index];
          const set = (raw: string | null) => setValues((current) => new Map(current).set(c.id, raw));
          return (
            <Stack key={c.id} gap={4}>
              <Text size="sm" ff="monospace" fw={600}>
                <KeyText value={key} />
              </Text>
              {c.isSecret || c.redacted ? (
                <TextInput
                  type="password"
                  aria-label={key}
                  description="A secret: its requested value is not shown, type it again."
                  value={value ?? ''}
                  onChange={(e) => set(e.currentTarget.value)}
                  error={tried || value !== undefined ? problem : undefined}
                />
              ) : (
                entry && <ValueEditor entry={entry} value={value ?? null} onChange={set} error={problem ?? null} />
              )}
              {!c.isSecret && !c.redacted && c.currentValue !== undefined && (
                <Text size="xs" c="dimmed">
                  Now: {shown(c.currentValue)}
                </Text>
              )}
            </Stack>
          );
        })}
      </Stack>
    </FormDialog>
  );
}
