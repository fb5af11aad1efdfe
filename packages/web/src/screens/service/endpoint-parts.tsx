import { Badge, Button, Code, Group, Loader, Table, Text, TextInput, type TextInputProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { asProblem } from '../../api/problem';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { FormDialog } from '../../components/form-dialog';
import { ShownOnceDialog } from '../../components/shown-once-dialog';
import { useFormFields, type Rules } from '../../components/use-form-fields';
import { orNull } from '../../rules/form-rules';

/*
 * What the Webhooks and Validators tabs share: both list URLs a service posts to, signed, each with
 * a secret shown once when it is made. One kind of endpoint is named by `noun` ("Webhook",
 * "Validator"); its plural in lower case ("webhooks") names its list.
 */

/** An endpoint as both lists have it. */
export interface ListedEndpoint {
  readonly id: string;
  readonly url: string;
  readonly description: string | null;
  readonly enabled: boolean;
}

/** The list of a kind of endpoint as its query has it. */
interface EndpointList {
  readonly data?: readonly unknown[];
  readonly isPending: boolean;
  readonly isError: boolean;
  readonly error: Error | null;
}

/** Null unless the caller may not see the list (403): then what it says in place of the tab. */
export function ownersOnly(list: EndpointList, plural: string): ReactNode {
  if (!list.isError || asProblem(list.error).status !== 403) return null;
  return <Text>Only owners of this service and admins see and manage its {plural}.</Text>;
}

/** What the tab is about, and its `New …` button. */
export function EndpointsHeader(props: { children: ReactNode; newLabel: string; onNew: () => void }) {
  return (
    <Group justify="space-between">
      <Text c="dimmed" size="sm">
        {props.children}
      </Text>
      <Button onClick={props.onNew}>{props.newLabel}</Button>
    </Group>
  );
}

/** The list's loader, its error, and what an empty list says (`emptyTitle`, then `children`). */
export function EndpointListStatus(props: {
  list: EndpointList;
  plural: string;
  emptyTitle: string;
  children: ReactNode;
}) {
  const { list } = props;
  return (
    <>
      {list.isPending && <Loader aria-label={`Loading ${props.plural}`} />}
      {list.isError && <ProblemAlert error={list.error} />}
      {list.data?.length === 0 && <EmptyState title={props.emptyTitle}>{props.children}</EmptyState>}
    </>
  );
}

/** The request that creates an endpoint (a react-query mutation). */
interface CreateMutation<B, C> {
  readonly isPending: boolean;
  readonly error: Error | null;
  reset(): void;
  mutate(body: B, options: { onSuccess: (created: C) => void }): void;
}

type EndpointForm = Record<string, string> & { url: string; description: string };

/**
 * `New webhook`, `New validator`: the URL (required, focused first), the description and the fields
 * only this kind has (`more`); `bodyOf` makes the request's body of the URL and description as the
 * server takes them (trimmed, an empty description null) and of those other fields.
 */
export function NewEndpointDialog<F extends EndpointForm, B, C>(props: {
  noun: 'webhook' | 'validator';
  opened: boolean;
  onClose: () => void;
  create: CreateMutation<B, C>;
  onCreated: (created: C) => void;
  empty: F;
  rules: Rules<F>;
  bodyOf: (endpoint: { url: string; description: string | null }, values: F) => B;
  url: Pick<TextInputProps, 'placeholder' | 'description'>;
  descriptionPlaceholder?: string;
  more?: (input: ReturnType<typeof useFormFields<F>>['input']) => ReactNode;
}) {
  const { create } = props;
  const form = useFormFields(props.empty, props.rules, create.error);
  const submit = () => {
    if (!form.trySubmit()) return;
    const endpoint = { url: form.values.url.trim(), description: orNull(form.values.description) };
    create.mutate(props.bodyOf(endpoint, form.values), { onSuccess: props.onCreated });
  };
  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title={`New ${props.noun}`}
      submitLabel={`Create ${props.noun}`}
      mutation={create}
      fields={Object.keys(props.empty)}
      onOpen={() => form.reset(props.empty)}
      onSubmit={submit}
    >
      <TextInput label="URL" {...props.url} required data-autofocus {...form.input('url')} />
      <TextInput label="Description" placeholder={props.descriptionPlaceholder} {...form.input('description')} />
      {props.more?.(form.input)}
    </FormDialog>
  );
}

/** A column only one kind of endpoint has, between the URL and the status. */
export interface EndpointColumn<E> {
  /** Its header, also said before the cell on a phone (where a row is a card). */
  readonly header: string;
  readonly cell: (endpoint: E) => ReactNode;
}

/**
 * The endpoints (when there are any): the URL and the description under it, the kind's own
 * `columns`, the Enabled badge, and the row's `actions`. `label` is the table's accessible name.
 */
export function EndpointTable<E extends ListedEndpoint>(props: {
  label: string;
  endpoints: readonly E[] | undefined;
  columns: readonly EndpointColumn<E>[];
  actions: (endpoint: E) => ReactNode;
}) {
  if (!props.endpoints || props.endpoints.length === 0) return null;
  return (
    <Table striped aria-label={props.label} className="rc-stack">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>URL</Table.Th>
          {props.columns.map((c) => (
            <Table.Th key={c.header}>{c.header}</Table.Th>
          ))}
          <Table.Th>Status</Table.Th>
          <Table.Th>Actions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.endpoints.map((e) => (
          <Table.Tr key={e.id}>
            <Table.Td>
              <Code>{e.url}</Code>
              {e.description && <Text size="sm">{e.description}</Text>}
            </Table.Td>
            {props.columns.map((c) => (
              <Table.Td key={c.header} data-label={c.header}>
                {c.cell(e)}
              </Table.Td>
            ))}
            <Table.Td>
              <Badge variant="dot" color={e.enabled ? 'green' : 'gray'}>
                {e.enabled ? 'Enabled' : 'Disabled'}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Group gap="xs">{props.actions(e)}</Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A row's `Delete`: it asks first (the tab's ConfirmDialog). */
export function DeleteEndpointButton({ onClick }: { onClick: () => void }) {
  return (
    <Button size="xs" variant="subtle" color="red" onClick={onClick}>
      Delete
    </Button>
  );
}

/** The signing secret of a new endpoint, shown this once; `children` says what verifies with it. */
export function EndpointSecretDialog(props: {
  noun: string;
  created: { readonly secret: string } | null;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <ShownOnceDialog
      value={props.created?.secret ?? null}
      title={`${props.noun} created`}
      valueLabel={`${props.noun} secret`}
      copyLabel="Copy secret"
      alertTitle="Copy the secret now"
      alertColor="blue"
      onClose={props.onClose}
    >
      This is the only time the signing secret is shown. {props.children}
    </ShownOnceDialog>
  );
}
