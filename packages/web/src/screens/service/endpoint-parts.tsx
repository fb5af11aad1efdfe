import { Badge, Button, Code, Group, Loader, Text, TextInput, type TextInputProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { asProblem } from '../../api/problem';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { ShownOnceDialog } from '../../components/shown-once-dialog';

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

/** The URL field of a `New …` dialog: required, focused first. */
export function EndpointUrlInput(props: Omit<TextInputProps, 'label' | 'required'>) {
  return <TextInput label="URL" required data-autofocus {...props} />;
}

/** The first cell of a row: the URL, and the description under it. */
export function EndpointUrl({ endpoint }: { endpoint: ListedEndpoint }) {
  return (
    <>
      <Code>{endpoint.url}</Code>
      {endpoint.description && <Text size="sm">{endpoint.description}</Text>}
    </>
  );
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <Badge variant="dot" color={enabled ? 'green' : 'gray'}>
      {enabled ? 'Enabled' : 'Disabled'}
    </Badge>
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
