import { Button, Code, Drawer, Fieldset, Group, Stack, Table, Text, Textarea, TextInput } from '@mantine/core';
import { ValueType, valueTypeName } from '@realtime-config/protocol';
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import type { Entry } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { StatusNote } from '../../components/status-note';
import { TimeText } from '../../components/time-text';
import { useFormFields } from '../../components/use-form-fields';
import { useNarrow } from '../../components/use-narrow';
import { optionalMax, orNull, required } from '../../rules/form-rules';
import { checkSchemaText } from '../../rules/schema-check';
import { useServiceAccess } from '../service/use-service';
import { useMe } from '../sign-in/use-session';
import { EntryHistory } from './entry-history';
import { OverridesSection } from './overrides';
import { ProtectedNote } from './protected-note';
import { entryRoute } from './route';
import { SchemaField, useSchemaText } from './schema-field';
import { useFirstValue, type FirstValue } from './use-first-value';
import { useDeleteEntry, useEntries, useUpdateEntry, useVersion } from './use-version';

function shown(raw: string | null | undefined) {
  return <Code>{raw === null || raw === undefined ? 'null' : raw === '' ? '""' : raw}</Code>;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const PROTECTED_NOTE_ID = 'entry-protected-note';

function MetadataForm(props: { serviceId: string; versionId: string; entry: Entry; isProtected: boolean }) {
  const { serviceId, versionId, entry, isProtected } = props;
  const update = useUpdateEntry(serviceId, versionId, entry.id);
  const form = useFormFields(
    {
      name: entry.name,
      description: entry.description ?? '',
      groupName: entry.groupName ?? '',
      groupDescription: entry.groupDescription ?? '',
      enumDefinition: entry.enumDefinition ?? '',
    },
    { name: required('Display name', 200), groupName: optionalMax('Group', 200) },
    update.error,
  );
  const schema = useSchemaText(entry.schema);
  // The generation the form was opened on: a change made elsewhere meanwhile answers 409, shown here.
  const [baseGeneration, setBaseGeneration] = useState(entry.generation);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const fieldsValid = form.trySubmit();
    // The text as it is now (the check as the user types may be a moment behind); its message shows on the field.
    const checked = await checkSchemaText(schema.text);
    if (!fieldsValid || checked.problem !== null) return;
    const v = form.values;
    update.mutate(
      {
        name: v.name.trim(),
        description: orNull(v.description),
        groupName: orNull(v.groupName),
        groupDescription: orNull(v.groupDescription),
        ...(entry.valueType === ValueType.ENUM ? { enumDefinition: orNull(v.enumDefinition) } : {}),
        // Sent only when changed: the server checks the stored value against a new schema (400 when it breaks it).
        ...(sameJson(checked.schema, entry.schema) ? {} : { schema: checked.schema }),
        generation: baseGeneration,
      },
      { onSuccess: ([updated]) => updated && setBaseGeneration(updated.generation) },
    );
  };
  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      {/* A protected version refuses details edits (409): the whole form is disabled, the note says why. */}
      <Fieldset
        variant="unstyled"
        m={0}
        p={0}
        miw={0}
        disabled={isProtected}
        aria-describedby={isProtected ? PROTECTED_NOTE_ID : undefined}
      >
        <Stack gap="sm">
          {update.isError && <ProblemAlert error={update.error} hideFields={['name', 'groupName']} />}
          {/* The page's own note (role status, full contrast): green text on white is below 4.5:1. */}
          <StatusNote text={update.isSuccess ? 'Details saved.' : null} />
          <TextInput label="Display name" {...form.input('name')} />
          <Textarea label="Description" autosize minRows={2} {...form.input('description')} />
          <TextInput label="Group" {...form.input('groupName')} />
          <Textarea label="Group description" autosize minRows={1} {...form.input('groupDescription')} />
          {entry.valueType === ValueType.ENUM && (
            <TextInput label="Allowed values" description="Separated by | or ," {...form.input('enumDefinition')} />
          )}
          <SchemaField schema={schema} disabled={isProtected} />
          <Group>
            <Button type="submit" loading={update.isPending}>
              Save details
            </Button>
          </Group>
        </Stack>
      </Fieldset>
    </form>
  );
}

/** The value an entry started with, and who gave it: the application that registered it, or a person. */
function FirstValueText({ first }: { first: FirstValue }) {
  if (!first.found) return <>not in the recent audit log</>;
  return (
    <>
      {shown(first.value)}{' '}
      <Text span size="xs" c="dimmed">
        {first.registered ? 'registered by the application' : `set by ${first.by ?? 'someone'}`}
      </Text>
    </>
  );
}

/** One entry's details in a drawer (a deep link): stored value, first value, history, metadata, delete. */
export function EntryDrawer() {
  const { serviceId, versionId, entryId } = entryRoute.useParams();
  const entries = useEntries(serviceId, versionId);
  const entry = entries.data?.find((e) => e.id === entryId);
  const me = useMe();
  const access = useServiceAccess(serviceId, me.data);
  const first = useFirstValue(serviceId, versionId, entry);
  const isProtected = useVersion(serviceId, versionId).data?.protected ?? false;
  const narrow = useNarrow();
  const remove = useDeleteEntry(serviceId, versionId, entryId);
  const [deleting, setDeleting] = useState(false);
  const navigate = useNavigate();
  const close = () =>
    void navigate({
      to: '/services/$serviceId/versions/$versionId',
      params: { serviceId, versionId },
      search: (s) => s,
    });

  return (
    <Drawer opened onClose={close} position="right" size={narrow ? '100%' : 'lg'} title={entry ? entry.key : 'Entry'}>
      {entries.isSuccess && !entry && <Text>This entry does not exist (any more).</Text>}
      {entry && (
        <Stack>
          <Table variant="vertical" withTableBorder>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={150}>Type</Table.Th>
                <Table.Td>{valueTypeName(entry.valueType)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Stored value</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  {entry.isSecret
                    ? `${entry.hasValue ? '••••••' : 'null'} (secret; fingerprint ${entry.fingerprint?.slice(0, 16) ?? 'none'})`
                    : shown(entry.rawValue)}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{first.data?.registered ? 'Registered default' : 'First value'}</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  {entry.isSecret ? (
                    '••••••'
                  ) : first.data ? (
                    <FirstValueText first={first.data} />
                  ) : first.isPending ? (
                    '…'
                  ) : (
                    '—'
                  )}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Revision</Table.Th>
                <Table.Td>{entry.generation}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Updated</Table.Th>
                <Table.Td>
                  <TimeText iso={entry.updatedAt} />
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          {first.isError && <ProblemAlert error={first.error} />}
          <OverridesSection
            key={`overrides-${entry.id}`}
            serviceId={serviceId}
            versionId={versionId}
            entry={entry}
            mayEdit={access.write && !isProtected}
          />
          <EntryHistory serviceId={serviceId} versionId={versionId} entry={entry} mayRestore={access.write} />
          {access.manage ? (
            <>
              {isProtected && (
                <ProtectedNote id={PROTECTED_NOTE_ID}>
                  Its value changes on the version page with Request review…; its details and its deletion wait until an
                  owner lifts the protection.
                </ProtectedNote>
              )}
              <MetadataForm
                key={entry.id}
                serviceId={serviceId}
                versionId={versionId}
                entry={entry}
                isProtected={isProtected}
              />
              <Group>
                <Button
                  color="red"
                  variant="outline"
                  onClick={() => setDeleting(true)}
                  disabled={isProtected}
                  aria-describedby={isProtected ? PROTECTED_NOTE_ID : undefined}
                >
                  Delete entry
                </Button>
              </Group>
            </>
          ) : (
            <Text size="sm" c="dimmed">
              Only owners of this service and admins change an entry&apos;s name, description, group or allowed values.
            </Text>
          )}
          <ConfirmDialog
            opened={deleting}
            onClose={() => setDeleting(false)}
            title={`Delete ${entry.key}?`}
            confirmLabel="Delete entry"
            pending={remove.isPending}
            error={remove.error}
            onConfirm={() => remove.mutate(undefined, { onSuccess: close })}
          >
            Applications fall back to their declared default for this key.
          </ConfirmDialog>
        </Stack>
      )}
    </Drawer>
  );
}
