import { randomBytes } from 'node:crypto';
import type { DeliveryRecord, Page, Stores, UnitOfWork, WebhookFields, WebhookRecord } from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { clampPageSize, decodePageToken } from '../../platform/page-token.js';
import { requireAllowedTarget } from './webhook-targets.js';

/** For this long after a rotation, deliveries carry a signature by the previous secret as well. */
const ROTATION_OVERLAP_MICROS = 24 * 3600 * 1_000_000;

/** `whsec_` and the base64 of 32 random bytes: the Standard Webhooks form of a signing secret. */
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The webhooks of a service (its owners and canAll users manage them; the routes check that):
 * create (the secret is shown once), replace, delete, rotate the secret, read the delivery log,
 * send a delivery again.
 */
export class Webhooks {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: { readonly allowPrivateNetworks: boolean; readonly wake: () => void },
  ) {}

  async create(serviceId: string, fields: WebhookFields): Promise<{ webhook: WebhookRecord; secret: string }> {
    const checked = await this.check(fields);
    return this.uow.write(async (ctx) => {
      await requireService(ctx, serviceId);
      await requireVersionsOf(ctx, serviceId, checked.versionIds);
      const now = this.clock.nowMicros();
      const secret = newSecret();
      const webhook: WebhookRecord = {
        id: this.ids.newId(),
        serviceId: serviceId.toLowerCase(),
        ...checked,
        secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.webhooks.insert(webhook);
      return { webhook, secret };
    });
  }

  async list(serviceId: string): Promise<WebhookRecord[]> {
    await requireService(this.uow.read, serviceId);
    return this.uow.read.webhooks.list(serviceId.toLowerCase());
  }

  get(serviceId: string, webhookId: string): Promise<WebhookRecord> {
    return requireWebhook(this.uow.read, serviceId, webhookId);
  }

  /** Replaces every field of the webhook (the secret stays). */
  async replace(serviceId: string, webhookId: string, fields: WebhookFields): Promise<WebhookRecord> {
    const checked = await this.check(fields);
    return this.uow.write(async (ctx) => {
      const before = await requireWebhook(ctx, serviceId, webhookId);
      await requireVersionsOf(ctx, serviceId, checked.versionIds);
      const after: WebhookRecord = { ...before, ...checked, updatedAt: this.clock.nowMicros() };
      await ctx.webhooks.update(before.id, { ...checked, updatedAt: after.updatedAt });
      return after;
    });
  }

  async delete(serviceId: string, webhookId: string): Promise<void> {
    const deleted = await this.uow.write((ctx) => ctx.webhooks.delete(serviceId.toLowerCase(), webhookId));
    if (!deleted) throw webhookNotFound(webhookId);
  }

  /** A new secret; the previous one keeps signing (a second signature) for 24 hours. */
  rotateSecret(serviceId: string, webhookId: string): Promise<string> {
    return this.uow.write(async (ctx) => {
      const webhook = await requireWebhook(ctx, serviceId, webhookId);
      const now = this.clock.nowMicros();
      const secret = newSecret();
      await ctx.webhooks.update(webhook.id, {
        secret,
        previousSecret: webhook.secret,
        previousSecretExpiresAt: now + ROTATION_OVERLAP_MICROS,
        updatedAt: now,
      });
      return secret;
    });
  }

  async deliveries(
    serviceId: string,
    webhookId: string,
    paging: { pageSize?: number | null; pageToken?: string | null },
  ): Promise<Page<DeliveryRecord>> {
    const after = decodePageToken(paging.pageToken);
    const webhook = await requireWebhook(this.uow.read, serviceId, webhookId);
    return this.uow.read.webhooks.listDeliveries(webhook.id, clampPageSize(paging.pageSize), after);
  }

  /**
   * Sends a delivery again with the same `webhook-id`, as one more attempt of the same delivery: at
   * once if it is still pending, else as a single attempt without retries.
   */
  async redeliver(serviceId: string, webhookId: string, deliveryId: string): Promise<void> {
    await this.uow.write(async (ctx) => {
      const webhook = await requireWebhook(ctx, serviceId, webhookId);
      if (!webhook.enabled) throw AppError.conflict('The webhook is disabled; enable it before sending again.');
      const delivery = await ctx.webhooks.getDelivery(webhook.id, deliveryId.toLowerCase());
      if (!delivery) throw AppError.notFound(`Delivery ${deliveryId} was not found for this webhook.`);
      await ctx.webhooks.redeliver(delivery.id, this.clock.nowMicros(), delivery.status !== 'pending');
    });
    this.options.wake();
  }

  private async check(fields: WebhookFields): Promise<WebhookFields> {
    const url = await requireAllowedTarget(fields.url.trim(), this.options.allowPrivateNetworks);
    const eventTypes = fields.eventTypes === null ? null : [...new Set(fields.eventTypes)];
    const versionIds = fields.versionIds === null ? null : [...new Set(fields.versionIds.map((v) => v.toLowerCase()))];
    return { ...fields, url, eventTypes, versionIds };
  }
}

async function requireService(stores: Pick<Stores, 'services'>, serviceId: string): Promise<void> {
  if (!(await stores.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
}

async function requireVersionsOf(stores: Stores, serviceId: string, versionIds: readonly string[] | null) {
  for (const versionId of versionIds ?? []) {
    if (!(await stores.versions.get(serviceId, versionId))) {
      throw AppError.invalid(`There is no version ${versionId} in this service.`, {
        versionIds: [`${versionId} is not a version of this service`],
      });
    }
  }
}

async function requireWebhook(stores: Stores, serviceId: string, webhookId: string): Promise<WebhookRecord> {
  const webhook = await stores.webhooks.get(serviceId.toLowerCase(), webhookId.toLowerCase());
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

const webhookNotFound = (webhookId: string) => AppError.notFound(`Webhook ${webhookId} was not found in this service.`);
