import type { NewWebhook, WebhookDelivery } from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { table } from '../output.js';
import { unwrap } from '../rest.js';
import { resolveService } from '../targets.js';

const EVENT_TYPES = ['entry.changed', 'version.created', 'version.deleted'] as const;

const lastAttempt = (d: WebhookDelivery): string => {
  const last = d.attempts.at(-1);
  if (!last) return '–';
  return last.error ?? String(last.statusCode);
};

/** Webhooks of a service: signed deliveries of its changes, their log, sending one again. */
export function webhookCommands(program: Command, globals: () => GlobalOptions): void {
  const webhooks = program
    .command('webhooks')
    .description("A service's webhooks: signed HTTP deliveries of its changes (owners)")
    .addHelpText(
      'after',
      '\nExamples:\n  realtime-config webhooks add payments https://hooks.example.com/rc --key-prefix Payments:\n' +
        '  realtime-config webhooks deliveries payments <webhookId>\n' +
        '  realtime-config webhooks redeliver payments <webhookId> <deliveryId>',
    );

  webhooks
    .command('list <service>')
    .description('The webhooks of a service (never their secrets)')
    .action(async (serviceName: string) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceName);
      const list = await unwrap(
        ctx.api.GET('/api/services/{serviceId}/webhooks', { params: { path: { serviceId: service.id } } }),
      );
      ctx.out.result(list, () =>
        list.length === 0
          ? 'No webhooks.'
          : table(
              ['ID', 'URL', 'EVENTS', 'KEY PREFIX', 'ENABLED'],
              list.map((w) => [
                w.id,
                w.url,
                w.eventTypes?.join(',') ?? 'all',
                w.keyPrefix ?? '–',
                w.enabled ? 'yes' : 'no',
              ]),
            ),
      );
    });

  webhooks
    .command('add <service> <url>')
    .description('Add a webhook; its signing secret (whsec_…) is printed once: store it now')
    .option('--description <text>', 'for people')
    .addOption(new Option('--event <type...>', 'only these event types (default: all)').choices(EVENT_TYPES))
    .option('--version-id <id...>', 'only changes of these versions (ids; default: every version)')
    .option('--key-prefix <prefix>', 'only changes of keys starting with it')
    .option('--disabled', 'add it disabled: it sends nothing until enabled')
    .action(
      async (
        serviceName: string,
        url: string,
        options: { description?: string; event?: string[]; versionId?: string[]; keyPrefix?: string; disabled?: true },
      ) => {
        const ctx = contextOf(globals());
        const service = await resolveService(ctx.api, serviceName);
        const body: NewWebhook = {
          url,
          description: options.description ?? null,
          eventTypes: (options.event as NewWebhook['eventTypes']) ?? null,
          versionIds: options.versionId ?? null,
          keyPrefix: options.keyPrefix ?? null,
          enabled: options.disabled !== true,
        };
        const created = await unwrap(
          ctx.api.POST('/api/services/{serviceId}/webhooks', { params: { path: { serviceId: service.id } }, body }),
        );
        ctx.out.result(created, () => `${created.id}\n${created.secret}`);
        ctx.out.note(
          `Webhook ${created.id} sends to ${created.url}. Its secret (second line) is shown only now: verify deliveries with it.`,
        );
      },
    );

  webhooks
    .command('remove <service> <webhookId>')
    .description('Delete a webhook and its delivery log')
    .action(async (serviceName: string, webhookId: string) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceName);
      await unwrap(
        ctx.api.DELETE('/api/services/{serviceId}/webhooks/{webhookId}', {
          params: { path: { serviceId: service.id, webhookId } },
        }),
      );
      ctx.out.result({ removed: webhookId }, () => `Removed ${webhookId}.`);
    });

  webhooks
    .command('deliveries <service> <webhookId>')
    .description('The delivery log of a webhook, newest first: status, attempts, the last answer')
    .option('--limit <n>', 'at most this many (1–500)', '20')
    .action(async (serviceName: string, webhookId: string, options: { limit: string }) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceName);
      const page = await unwrap(
        ctx.api.GET('/api/services/{serviceId}/webhooks/{webhookId}/deliveries', {
          params: { path: { serviceId: service.id, webhookId }, query: { pageSize: options.limit } },
        }),
      );
      ctx.out.result(page, () =>
        page.deliveries.length === 0
          ? 'No deliveries.'
          : table(
              ['ID', 'EVENT', 'CREATED', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'NEXT ATTEMPT'],
              page.deliveries.map((d) => [
                d.id,
                d.eventType,
                d.createdAt,
                d.status,
                String(d.attempts.length),
                lastAttempt(d),
                d.nextAttemptAt ?? '–',
              ]),
            ),
      );
    });

  webhooks
    .command('redeliver <service> <webhookId> <deliveryId>')
    .description('Send a delivery again, with the same webhook-id, as one more attempt of it')
    .action(async (serviceName: string, webhookId: string, deliveryId: string) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceName);
      await unwrap(
        ctx.api.POST('/api/services/{serviceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { serviceId: service.id, webhookId, deliveryId } },
        }),
      );
      ctx.out.result({ redelivered: deliveryId }, () => `Sending ${deliveryId} again.`);
    });
}
