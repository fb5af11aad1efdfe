import type { Kysely, Selectable } from 'kysely';
import type {
  DeliveryAttempt,
  DeliveryRecord,
  DeliveryStatus,
  SecretCipher,
  WebhookEventType,
  WebhookRecord,
  WebhookStore,
} from '../../core/index.js';
import { encodePageToken } from '../../platform/page-token.js';
import type { DatabaseSchema, Dialect, WebhookDeliveriesTable, WebhooksTable } from '../schema.js';
import { openedSigningSecret, sealSigningSecrets, storedSigningSecret } from './webhook-secrets.js';

const jsonOrNull = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const toJsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
const numberOrNull = (value: number | string | bigint | null): number | null => (value === null ? null : Number(value));

function toWebhook(row: Selectable<WebhooksTable>, cipher: SecretCipher): WebhookRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    url: row.url,
    description: row.description,
    eventTypes: jsonOrNull<WebhookEventType[]>(row.event_types),
    versionIds: jsonOrNull<string[]>(row.version_ids),
    keyPrefix: row.key_prefix,
    enabled: Number(row.enabled) === 1,
    secret: openedSigningSecret(cipher, row.secret),
    previousSecret: openedSigningSecret(cipher, row.previous_secret),
    previousSecretExpiresAt: numberOrNull(row.previous_secret_expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

type DeliveryRow = Selectable<WebhookDeliveriesTable>;

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    serviceId: row.service_id,
    eventType: row.event_type as WebhookEventType,
    payload: row.payload,
    createdAt: Number(row.created_at),
    status: row.status as DeliveryStatus,
    attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
    failures: Number(row.failures),
    nextAttemptAt: numberOrNull(row.next_attempt_at),
    redelivery: Number(row.redelivery) === 1,
  };
}

/** Signing secrets are sealed on the way in and opened on the way out (`webhook-secrets.ts`). */
export function createWebhookStore(db: Kysely<DatabaseSchema>, dialect: Dialect, cipher: SecretCipher): WebhookStore {
  const toRecord = (row: Selectable<WebhooksTable>) => toWebhook(row, cipher);
  const stored = (plain: string | null) => (plain === null ? null : storedSigningSecret(cipher, plain));
  /** Pending deliveries of enabled webhooks that nobody holds a claim on at `now`. */
  const unclaimedRows = (now: number) =>
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .where('d.status', '=', 'pending')
      .where('w.enabled', '=', 1)
      .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]));
  /** Those of them whose next attempt is due: no attempt is ever made before its `next_attempt_at`. */
  const dueRows = (now: number) => unclaimedRows(now).where('d.next_attempt_at', '<=', now);

  return {
    async insert(w) {
      if (w.secret === null) throw new Error('a webhook is created with a secret');
      await db
        .insertInto('webhooks')
        .values({
          id: w.id,
          service_id: w.serviceId,
          url: w.url,
          description: w.description,
          event_types: toJsonOrNull(w.eventTypes),
          version_ids: toJsonOrNull(w.versionIds),
          key_prefix: w.keyPrefix,
          enabled: w.enabled ? 1 : 0,
          secret: storedSigningSecret(cipher, w.secret),
          previous_secret: stored(w.previousSecret),
          previous_secret_expires_at: w.previousSecretExpiresAt,
          created_at: w.createdAt,
          updated_at: w.updatedAt,
        })
        .execute();
    },
    async get(serviceId, id) {
      const row = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .where('service_id', '=', serviceId)
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async list(serviceId) {
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('service_id', '=', serviceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    async enabledFilters(serviceId) {
      const rows = await db
        .selectFrom('webhooks')
        .select(['id', 'event_types', 'version_ids', 'key_prefix'])
        .where('service_id', '=', serviceId)
        .where('enabled', '=', 1)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        eventTypes: jsonOrNull<WebhookEventType[]>(row.event_types),
        versionIds: jsonOrNull<string[]>(row.version_ids),
        keyPrefix: row.key_prefix,
      }));
    },
    async enabledAmong(ids) {
      if (ids.length === 0) return new Set<string>();
      const rows = await db
        .selectFrom('webhooks')
        .select('id')
        .where('id', 'in', [...ids])
        .where('enabled', '=', 1)
        .execute();
      return new Set(rows.map((row) => row.id));
    },
    async update(id, c) {
      await db
        .updateTable('webhooks')
        .set({
          ...(c.url !== undefined ? { url: c.url } : {}),
          ...(c.description !== undefined ? { description: c.description } : {}),
          ...(c.eventTypes !== undefined ? { event_types: toJsonOrNull(c.eventTypes) } : {}),
          ...(c.versionIds !== undefined ? { version_ids: toJsonOrNull(c.versionIds) } : {}),
          ...(c.keyPrefix !== undefined ? { key_prefix: c.keyPrefix } : {}),
          ...(c.enabled !== undefined ? { enabled: c.enabled ? 1 : 0 } : {}),
          ...(typeof c.secret === 'string' ? { secret: storedSigningSecret(cipher, c.secret) } : {}),
          ...(c.previousSecret !== undefined ? { previous_secret: stored(c.previousSecret) } : {}),
          ...(c.previousSecretExpiresAt !== undefined ? { previous_secret_expires_at: c.previousSecretExpiresAt } : {}),
          updated_at: c.updatedAt,
        })
        .where('id', '=', id)
        .execute();
    },
    async delete(serviceId, id) {
      const result = await db
        .deleteFrom('webhooks')
        .where('id', '=', id)
        .where('service_id', '=', serviceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async insertDeliveries(deliveries) {
      if (deliveries.length === 0) return;
      await db
        .insertInto('webhook_deliveries')
        .values(
          deliveries.map((d) => ({
            id: d.id,
            webhook_id: d.webhookId,
            service_id: d.serviceId,
            event_type: d.eventType,
            payload: d.payload,
            created_at: d.createdAt,
            status: d.status,
            attempts: JSON.stringify(d.attempts),
            failures: d.failures,
            next_attempt_at: d.nextAttemptAt,
            lease_until: null,
            redelivery: d.redelivery ? 1 : 0,
          })),
        )
        .execute();
    },
    async getDelivery(webhookId, id) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .where('webhook_id', '=', webhookId)
        .executeTakeFirst();
      return row && toDelivery(row);
    },
    async listDeliveries(webhookId, pageSize, after) {
      let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
      if (after !== null) query = query.where('num', '<', after);
      const rows = await query
        .orderBy('num', 'desc')
        .limit(pageSize + 1)
        .execute();
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      return {
        entities: page.map(toDelivery),
        nextPageToken: rows.length > pageSize && last ? encodePageToken(Number(last.num)) : '',
      };
    },
    async claimDue(now, leaseUntil, limit) {
      // PostgreSQL: rows another instance is claiming right now are skipped, not waited for, and
      // never claimed twice. SQLite: one writer, so the UPDATE alone is enough.
      const picked = dueRows(now)
        .select('d.num')
        .orderBy('d.next_attempt_at')
        .limit(limit)
        .$if(dialect === 'postgres', (q) => q.forUpdate('d').skipLocked());
      const rows = await db
        .updateTable('webhook_deliveries')
        .set({ lease_until: leaseUntil })
        .where('num', 'in', picked)
        .returningAll()
        .execute();
      if (rows.length === 0) return [];
      const webhooks = await db
        .selectFrom('webhooks')
        .selectAll()
        .where(
          'id',
          'in',
          rows.map((r) => r.webhook_id),
        )
        .execute();
      const byId = new Map(webhooks.map((w) => [w.id, toRecord(w)]));
      return rows.flatMap((row) => {
        const webhook = byId.get(row.webhook_id);
        return webhook ? [{ delivery: toDelivery(row), webhook }] : [];
      });
    },
    async nextDue(now) {
      const row = await unclaimedRows(now)
        .select((eb) => eb.fn.min('d.next_attempt_at').as('next'))
        .executeTakeFirst();
      return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
    },
    async finishAttempt(id, outcome, claimed) {
      const attempts = JSON.stringify(outcome.attempts);
      const finished = await db
        .updateTable('webhook_deliveries')
        .set({
          attempts,
          status: outcome.status,
          failures: outcome.failures,
          next_attempt_at: outcome.nextAttemptAt,
          lease_until: null,
          redelivery: 0,
        })
        .where('id', '=', id)
        .where('status', '=', claimed.status)
        .where((eb) =>
          claimed.nextAttemptAt === null
            ? eb('next_attempt_at', 'is', null)
            : eb('next_attempt_at', '=', claimed.nextAttemptAt),
        )
        .where('redelivery', '=', claimed.redelivery ? 1 : 0)
        .executeTakeFirst();
      if (Number(finished.numUpdatedRows) > 0) return;
      // Redelivered while this attempt was under way: it is logged, and the redelivery stands.
      await db.updateTable('webhook_deliveries').set({ attempts, lease_until: null }).where('id', '=', id).execute();
    },
    sealSecrets: (rewrap) => sealSigningSecrets(db, cipher, rewrap),
    async disable(ids, now) {
      if (ids.length === 0) return;
      await db.updateTable('webhooks').set({ enabled: 0, updated_at: now }).where('id', 'in', ids).execute();
    },
    async release(id) {
      await db.updateTable('webhook_deliveries').set({ lease_until: null }).where('id', '=', id).execute();
    },
    async releaseAll() {
      await db
        .updateTable('webhook_deliveries')
        .set({ lease_until: null })
        .where('lease_until', 'is not', null)
        .execute();
    },
    async redeliver(id, now, redelivery) {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, ...(redelivery ? { redelivery: 1 } : {}) })
        .where('id', '=', id)
        .execute();
    },
  };
}
