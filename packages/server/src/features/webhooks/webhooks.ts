import {
  requireService,
  type Actor,
  type AuditAction,
  type AuditChanges,
  type AuditRecord,
  type DeliveryRecord,
  type Page,
  type Stores,
  type UnitOfWork,
  type WebhookFields,
  type WebhookRecord,
} from '../../core/index.js';
import { microsToIso, type Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { clampPageSize, decodePageToken } from '../../platform/page-token.js';
import { newSigningSecret } from './endpoints.js';
import type { WebhookFilterCache } from './webhook-filter-cache.js';
import { auditedOrigin, requireAllowedTarget } from './webhook-targets.js';

/** For this long after a rotation, deliveries carry a signature by the previous secret as well. */
const ROTATION_OVERLAP_MICROS = 24 * 3600 * 1_000_000;

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
    private readonly options: {
      readonly allowPrivateNetworks: boolean;
      readonly wake: () => void;
      /** Which webhooks each service has, as the outbox caches it: told of every change here. */
      readonly filters: WebhookFilterCache;
    },
  ) {}

  async create(
    actor: Actor,
    serviceId: string,
    fields: WebhookFields,
  ): Promise<{ webhook: WebhookRecord; secret: string }> {
    const checked = await this.check(fields);
    const created = await this.uow.write(async (ctx) => {
      await requireService(ctx, serviceId);
      await requireVersionsOf(ctx, serviceId, checked.versionIds);
      const now = this.clock.nowMicros();
      const secret = newSigningSecret();
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
      await ctx.audit.append(this.audited(actor, webhook, 'Created', now, { after: webhookAuditView(webhook) }));
      return { webhook, secret };
    });
    await this.changed(created.webhook.serviceId, created.webhook.enabled);
    return created;
  }

  async list(serviceId: string): Promise<WebhookRecord[]> {
    await requireService(this.uow.read, serviceId);
    return this.uow.read.webhooks.list(serviceId.toLowerCase());
  }

  get(serviceId: string, webhookId: string): Promise<WebhookRecord> {
    return requireWebhook(this.uow.read, serviceId, webhookId);
  }

  /** Replaces every field of the webhook (the secret stays). */
  async replace(actor: Actor, serviceId: string, webhookId: string, fields: WebhookFields): Promise<WebhookRecord> {
    const checked = await this.check(fields);
    const after = await this.uow.write(async (ctx) => {
      const before = await requireWebhook(ctx, serviceId, webhookId);
      await requireVersionsOf(ctx, serviceId, checked.versionIds);
      const replaced: WebhookRecord = { ...before, ...checked, updatedAt: this.clock.nowMicros() };
      await ctx.webhooks.update(before.id, { ...checked, updatedAt: replaced.updatedAt });
      await ctx.audit.append(
        this.audited(actor, replaced, 'Updated', replaced.updatedAt, {
          before: webhookAuditView(before),
          after: webhookAuditView(replaced),
        }),
      );
      return replaced;
    });
    await this.changed(after.serviceId, after.enabled);
    return after;
  }

  async delete(actor: Actor, serviceId: string, webhookId: string): Promise<void> {
    await this.uow.write(async (ctx) => {
      const before = await requireWebhook(ctx, serviceId, webhookId);
      if (!(await ctx.webhooks.delete(before.serviceId, before.id))) throw webhookNotFound(webhookId);
      const now = this.clock.nowMicros();
      await ctx.audit.append(this.audited(actor, before, 'Deleted', now, { before: webhookAuditView(before) }));
    });
    // A deleted webhook gets no delivery even from an instance that still caches it (the outbox
    // checks): nothing to wait for.
    await this.changed(serviceId.toLowerCase(), false);
  }

  /** A new secret; the previous one keeps signing (a second signature) for 24 hours. */
  rotateSecret(actor: Actor, serviceId: string, webhookId: string): Promise<string> {
    return this.uow.write(async (ctx) => {
      const webhook = await requireWebhook(ctx, serviceId, webhookId);
      const now = this.clock.nowMicros();
      const secret = newSigningSecret();
      const previousSecretExpiresAt = now + ROTATION_OVERLAP_MICROS;
      await ctx.webhooks.update(webhook.id, {
        secret,
        // One that cannot be opened (its master key is gone) signs nothing: none is kept.
        previousSecret: webhook.secret,
        previousSecretExpiresAt,
        updatedAt: now,
      });
      // Which secret is never recorded: only that it changed, and until when the previous one signs.
      await ctx.audit.append(
        this.audited(actor, webhook, 'SecretRotated', now, {
          after: { id: webhook.id, previousSecretExpiresAt: microsToIso(previousSecretExpiresAt) },
        }),
      );
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

  /**
   * After the commit of a change to a service's webhooks: this instance forgets what it cached;
   * when the change lets a webhook receive more, the answer waits until no other instance can
   * still use what it read before (`WebhookFilterCache.settle`).
   */
  private async changed(serviceId: string, receivesMore: boolean): Promise<void> {
    this.options.filters.forget(serviceId);
    if (receivesMore) await this.options.filters.settle();
  }

  private audited(
    actor: Actor,
    webhook: WebhookRecord,
    action: AuditAction,
    now: number,
    changes: AuditChanges,
  ): Omit<AuditRecord, 'num'> {
    return {
      id: this.ids.newId(),
      serviceId: webhook.serviceId,
      entityType: 'Webhook',
      entityId: webhook.id,
      action,
      ...actor,
      timestamp: now,
      changes,
    };
  }

  private async check(fields: WebhookFields): Promise<WebhookFields> {
    const url = await requireAllowedTarget(fields.url.trim(), this.options.allowPrivateNetworks);
    const eventTypes = fields.eventTypes === null ? null : [...new Set(fields.eventTypes)];
    const versionIds = fields.versionIds === null ? null : [...new Set(fields.versionIds.map((v) => v.toLowerCase()))];
    return { ...fields, url, eventTypes, versionIds };
  }
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

/**
 * A webhook as its audit records show it: never a secret, and of the URL only its origin (the path
 * or query of some receivers' URLs carries a token, and the audit log has more readers than the
 * webhooks: everyone who may read the service).
 */
function webhookAuditView(w: WebhookRecord) {
  return {
    id: w.id,
    url: auditedOrigin(w.url),
    description: w.description,
    eventTypes: w.eventTypes,
    versionIds: w.versionIds,
    keyPrefix: w.keyPrefix,
    enabled: w.enabled,
  };
}

const webhookNotFound = (webhookId: string) => AppError.notFound(`Webhook ${webhookId} was not found in this service.`);
