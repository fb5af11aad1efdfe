import {
  entryAnswer,
  secretSides,
  type DeliveryRecord,
  type Outbox,
  type ReportedChange,
  type ReportedEntryChange,
  type SecretCipher,
  type Stores,
  type WebhookFilter,
} from '../../core/index.js';
import { microsToIso, type Clock } from '../../platform/clock.js';
import type { IdGenerator } from '../../platform/ids.js';
import { versionOf } from '../versions/index.js';
import type { WebhookFilterCache } from './webhook-filter-cache.js';

/** The entry changes a webhook is told of: those under its key prefix (all without one). */
function matchingChanges(webhook: WebhookFilter, changes: readonly ReportedEntryChange[]) {
  const prefix = webhook.keyPrefix;
  if (prefix === null) return changes;
  return changes.filter((c) => ((c.after ?? c.before)?.key ?? '').startsWith(prefix));
}

function wants(webhook: WebhookFilter, change: ReportedChange): boolean {
  if (webhook.eventTypes !== null && !webhook.eventTypes.includes(change.type)) return false;
  const versionId = change.versionId.toLowerCase();
  return webhook.versionIds === null || webhook.versionIds.some((id) => id.toLowerCase() === versionId);
}

/**
 * The body of a delivery. Entries are shown by the same function as every REST answer
 * (`entryAnswer`), so whatever an answer hides of an entry (a secret's value) a delivery hides too,
 * and the outbox never holds a secret's value; an entry turning secret has its earlier deliveries
 * redacted by the secret store (`sealHistoryOf`).
 */
export function deliveryBody(
  change: ReportedChange,
  changes: readonly ReportedEntryChange[],
  cipher: SecretCipher,
): string {
  if ('rollout' in change)
    return JSON.stringify({ type: change.type, timestamp: microsToIso(change.timestamp), data: change.rollout });
  const data = {
    serviceId: change.serviceId,
    versionId: change.versionId,
    versionLabel: change.versionLabel,
    userId: change.actor.userId,
    userName: change.actor.userName,
    ...(change.type === 'entry.changed' ? {} : { version: versionOf(change.version) }),
    changes: changes.map((c) => {
      const entry = (c.after ?? c.before) as NonNullable<ReportedEntryChange['after']>;
      // The change that makes an entry secret shows its value before redacted too.
      const secret = secretSides(c.before, c.after);
      return {
        key: entry.key,
        entryId: entry.id,
        action: c.action,
        before: c.before && entryAnswer(c.before, cipher, { redact: secret.before }),
        after: c.after && entryAnswer(c.after, cipher, { redact: secret.after }),
      };
    }),
  };
  return JSON.stringify({ type: change.type, timestamp: microsToIso(change.timestamp), data });
}

/**
 * The outbox: inside the writing transaction, one delivery per reported change and enabled webhook
 * of its service that wants it (event type, version, key prefix), due at once; after the commit,
 * the dispatcher is woken so the common case waits for no poll. Which webhooks a service has comes
 * from the filter cache, so a write of a service without webhooks reads nothing more.
 */
export class WebhookOutbox implements Outbox<Stores> {
  private wake: () => void = () => undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly cipher: SecretCipher,
    private readonly filters: WebhookFilterCache,
  ) {}

  /** What to call after a commit that wrote deliveries (the dispatcher's wake-up). */
  onCommitted(wake: () => void): void {
    this.wake = wake;
  }

  async enqueue(stores: Stores, changes: readonly ReportedChange[]): Promise<boolean> {
    const webhooksOf = new Map<string, readonly WebhookFilter[]>();
    let deliveries: DeliveryRecord[] = [];
    const now = this.clock.nowMicros();
    for (const change of changes) {
      const serviceId = change.serviceId.toLowerCase();
      let webhooks = webhooksOf.get(serviceId);
      if (!webhooks) {
        webhooks = await this.filters.filtersOf(stores, serviceId);
        webhooksOf.set(serviceId, webhooks);
      }
      for (const webhook of webhooks) {
        if (!wants(webhook, change)) continue;
        const matching = change.type === 'entry.changed' ? matchingChanges(webhook, change.changes) : [];
        if (change.type === 'entry.changed' && matching.length === 0) continue;
        deliveries.push({
          id: this.ids.newId(),
          webhookId: webhook.id,
          serviceId,
          eventType: change.type,
          payload: deliveryBody(change, matching, this.cipher),
          createdAt: now,
          status: 'pending',
          attempts: [],
          failures: 0,
          nextAttemptAt: now,
          redelivery: false,
        });
      }
    }
    if (deliveries.length === 0) return false;
    // The cache may still name a webhook another instance deleted or disabled since: none for it.
    const enabled = await stores.webhooks.enabledAmong([...new Set(deliveries.map((d) => d.webhookId))]);
    deliveries = deliveries.filter((d) => enabled.has(d.webhookId));
    await stores.webhooks.insertDeliveries(deliveries);
    return deliveries.length > 0;
  }

  committed(): void {
    this.wake();
  }
}
