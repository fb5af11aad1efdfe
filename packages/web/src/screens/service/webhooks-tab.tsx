import { Badge, Button, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { CreatedWebhook, Webhook } from '@realtime-config/protocol/rest';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { orNull, webhookRules } from '../../rules/form-rules';
import {
  DeleteEndpointButton,
  EndpointListStatus,
  EndpointSecretDialog,
  EndpointsHeader,
  EndpointTable,
  NewEndpointDialog,
  ownersOnly,
} from './endpoint-parts';
import { webhooksTabRoute } from './route';
import { useCreateWebhook, useDeleteWebhook, useDeliveries, useRedeliver, useWebhooks } from './use-webhooks';

const EMPTY = { url: '', description: '', keyPrefix: '' };

const STATUS_COLOR = { pending: 'yellow', succeeded: 'green', failed: 'red' } as const;

/** The delivery log of one webhook, newest first, each with `Redeliver`. */
function Deliveries({ serviceId, webhook }: { serviceId: string; webhook: Webhook }) {
  const deliveries = useDeliveries(serviceId, webhook.id);
  const redeliver = useRedeliver(serviceId, webhook.id);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Deliveries to {webhook.url}
      </Title>
      {deliveries.isPending && <Loader aria-label="Loading deliveries" />}
      {deliveries.isError && <ProblemAlert error={deliveries.error} />}
      {redeliver.isError && <ProblemAlert error={redeliver.error} />}
      {deliveries.data?.deliveries.length === 0 && <Text c="dimmed">No deliveries yet: change a value.</Text>}
      {deliveries.data && deliveries.data.deliveries.length > 0 && (
        <Table striped aria-label="Deliveries" className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last answer</Table.Th>
              <Table.Th>Next attempt</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {deliveries.data.deliveries.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <Table.Tr key={d.id}>
                  <Table.Td>{d.eventType}</Table.Td>
                  <Table.Td data-label="Created">
                    <TimeText iso={d.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="dot" color={STATUS_COLOR[d.status]}>
                      {d.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td data-label="Attempts">{d.attempts.length}</Table.Td>
                  <Table.Td data-label="Last answer">
                    {last ? (last.error ?? `${last.statusCode} in ${last.durationMs} ms`) : '—'}
                  </Table.Td>
                  <Table.Td data-label="Next attempt">
                    <TimeText iso={d.nextAttemptAt} />
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      disabled={!webhook.enabled}
                      loading={redeliver.isPending && redeliver.variables === d.id}
                      onClick={() => redeliver.mutate(d.id)}
                    >
                      Redeliver
                    </Button>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

/** Webhooks of the service: list, `New webhook` (the secret shown once), the delivery log with `Redeliver`. */
export function WebhooksTab() {
  const { serviceId } = webhooksTabRoute.useParams();
  const webhooks = useWebhooks(serviceId);
  const create = useCreateWebhook(serviceId);
  const remove = useDeleteWebhook(serviceId);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);

  const refused = ownersOnly(webhooks, 'webhooks');
  if (refused) return refused;
  const selected = webhooks.data?.find((w) => w.id === shown) ?? null;

  return (
    <Stack>
      <EndpointsHeader newLabel="New webhook" onNew={() => setCreating(true)}>
        Each committed change is posted to every webhook, signed with its secret, and retried until it is answered.
      </EndpointsHeader>
      <EndpointListStatus list={webhooks} plural="webhooks" emptyTitle="No webhooks yet">
        Add one to tell a chat, a pipeline or a cache of every change of this service.
      </EndpointListStatus>
      <EndpointTable
        label="Webhooks"
        endpoints={webhooks.data}
        columns={[
          { header: 'Events', cell: (w) => w.eventTypes?.join(', ') ?? 'all' },
          { header: 'Key prefix', cell: (w) => w.keyPrefix ?? 'every key' },
        ]}
        actions={(w) => (
          <>
            <Button size="xs" variant="light" onClick={() => setShown(w.id)} aria-pressed={shown === w.id}>
              Deliveries
            </Button>
            <DeleteEndpointButton onClick={() => setDeleting(w)} />
          </>
        )}
      />
      {selected && <Deliveries serviceId={serviceId} webhook={selected} />}
      <NewEndpointDialog
        noun="webhook"
        opened={creating}
        create={create}
        empty={EMPTY}
        rules={webhookRules}
        bodyOf={(webhook, values) => ({ ...webhook, keyPrefix: orNull(values.keyPrefix) })}
        url={{
          placeholder: 'https://hooks.example.com/realtime-config',
          description: 'Every change of this service is posted here, signed (Standard Webhooks).',
        }}
        more={(input) => (
          <TextInput
            label="Key prefix"
            placeholder="Payments:"
            description="Only changes of keys starting with it. Empty: every key."
            {...input('keyPrefix')}
          />
        )}
        onClose={() => setCreating(false)}
        onCreated={(webhook) => {
          setCreating(false);
          setCreated(webhook);
          setShown(webhook.id);
        }}
      />
      <EndpointSecretDialog noun="Webhook" created={created} onClose={() => setCreated(null)}>
        Your receiver verifies each delivery with it.
      </EndpointSecretDialog>
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      >
        {deleting?.url} receives nothing more, and its delivery log is deleted.
      </ConfirmDialog>
    </Stack>
  );
}
