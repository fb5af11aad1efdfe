import type { EntryRecord } from './entries.js';
import type { AuditAction } from './audit.js';
import type { Actor } from './identity.js';
import type { Page } from './page.js';
import type { VersionRecord } from './versions.js';

/** What a webhook can be told of. */
export const WEBHOOK_EVENT_TYPES = [
  'entry.changed',
  'version.created',
  'version.deleted',
  'rollout.started',
  'rollout.completed',
  'rollout.rolled_back',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One entry's change in a committed write, both sides as stored (null for a creation / deletion). */
export interface ReportedEntryChange {
  /** As the entry's audit record names it. */
  readonly action: AuditAction;
  readonly before: EntryRecord | null;
  readonly after: EntryRecord | null;
}

interface ReportedBase {
  readonly serviceId: string;
  readonly versionId: string;
  readonly versionLabel: string;
  readonly actor: Actor;
  /** When the change was made, microseconds (the version's change clock for entry changes). */
  readonly timestamp: number;
}

/**
 * A committed change as webhooks report it. Recorded inside the writing transaction
 * (`WriteContext.report`); the unit of work hands them to the outbox before the commit, so the
 * deliveries are committed with the change or not at all.
 */
export type ReportedChange =
  | (ReportedBase & { readonly type: 'entry.changed'; readonly changes: readonly ReportedEntryChange[] })
  | (ReportedBase & { readonly type: 'version.created' | 'version.deleted'; readonly version: VersionRecord })
  | (ReportedBase & {
      readonly type: 'rollout.started' | 'rollout.completed' | 'rollout.rolled_back';
      /** The rollout as answers show it (a secret's new value left out): the delivery's `data`. */
      readonly rollout: Readonly<Record<string, unknown>>;
    });

/**
 * Writes the deliveries of a transaction's reported changes, in that transaction (`enqueue`, true
 * when it wrote any), and hears of the commit of such a transaction (`committed`) to send them at once.
 */
export interface Outbox<S = unknown> {
  enqueue(stores: S, changes: readonly ReportedChange[]): Promise<boolean>;
  committed(): void;
}

export interface WebhookRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly url: string;
  readonly description: string | null;
  /** Null: every type. */
  readonly eventTypes: readonly WebhookEventType[] | null;
  /** Null: every version. */
  readonly versionIds: readonly string[] | null;
  /** Null: every key. */
  readonly keyPrefix: string | null;
  readonly enabled: boolean;
  /**
   * `whsec_…`: deliveries are signed with it. Kept sealed by the master key (the store seals and
   * opens it); null when the stored one cannot be opened (its master key is not configured).
   */
  readonly secret: string | null;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What the outbox needs of an enabled webhook to tell which changes it wants (no secret). */
export type WebhookFilter = Pick<WebhookRecord, 'id' | 'eventTypes' | 'versionIds' | 'keyPrefix'>;

export type WebhookFields = Pick<
  WebhookRecord,
  'url' | 'description' | 'eventTypes' | 'versionIds' | 'keyPrefix' | 'enabled'
>;

export interface DeliveryAttempt {
  /** Microseconds. */
  readonly at: number;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly serviceId: string;
  readonly eventType: WebhookEventType;
  /** The JSON body, exactly as sent (the same on every attempt). */
  readonly payload: string;
  readonly createdAt: number;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  /** Failed attempts counted against the retry schedule. */
  readonly failures: number;
  readonly nextAttemptAt: number | null;
  /** A resend asked for after the delivery had ended: one attempt, no retries. */
  readonly redelivery: boolean;
}

/** A delivery claimed for sending, with what sending needs of its webhook. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord;
  readonly webhook: WebhookRecord;
}

/** How one attempt ended, and what the delivery becomes. */
export interface AttemptOutcome {
  /** Every attempt of the delivery, this one last. */
  readonly attempts: readonly DeliveryAttempt[];
  readonly status: DeliveryStatus;
  readonly failures: number;
  readonly nextAttemptAt: number | null;
}

export interface WebhookStore {
  insert(webhook: WebhookRecord): Promise<void>;
  get(serviceId: string, id: string): Promise<WebhookRecord | undefined>;
  /** Oldest first. */
  list(serviceId: string): Promise<WebhookRecord[]>;
  /** The filters of the enabled webhooks of a service, oldest first; their secrets are not read. */
  enabledFilters(serviceId: string): Promise<WebhookFilter[]>;
  /** Those of the ids that name an enabled webhook now. */
  enabledAmong(ids: readonly string[]): Promise<Set<string>>;
  update(
    id: string,
    change: Partial<Omit<WebhookRecord, 'id' | 'serviceId' | 'createdAt'>> & { readonly updatedAt: number },
  ): Promise<void>;
  delete(serviceId: string, id: string): Promise<boolean>;

  insertDeliveries(deliveries: readonly DeliveryRecord[]): Promise<void>;
  getDelivery(webhookId: string, id: string): Promise<DeliveryRecord | undefined>;
  /** Newest first, after the page token's position. */
  listDeliveries(webhookId: string, pageSize: number, after: number | null): Promise<Page<DeliveryRecord>>;
  /**
   * Claims up to `limit` pending deliveries of enabled webhooks that are due at `now` and not claimed
   * by anyone else (their lease passed), leasing them until `leaseUntil`. With PostgreSQL the rows
   * are picked with FOR UPDATE SKIP LOCKED, so instances sharing the database never claim the same.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /** The earliest time an unclaimed pending delivery of an enabled webhook is due (undefined: none). */
  nextDue(now: number): Promise<number | undefined>;
  /**
   * Records an attempt and ends the lease. The outcome (status, next attempt) is written only if the
   * delivery is still as `claimed` was (a redelivery asked for meanwhile changes it): else only the
   * attempt is recorded, and the delivery stays due as the redelivery made it.
   */
  finishAttempt(id: string, outcome: AttemptOutcome, claimed: DeliveryRecord): Promise<void>;
  /**
   * Seals every signing secret still stored as plaintext (rows written without a master key, or by
   * an older release); with `rewrap`, also re-wraps the sealed ones with the current master key.
   * Answers how many it wrote. Needs a master key.
   */
  sealSecrets(rewrap: boolean): Promise<number>;
  /** Disables webhooks (they answered 410 Gone). */
  disable(ids: readonly string[], now: number): Promise<void>;
  /** Ends a lease without an attempt (the server stopped while sending): sent again at once. */
  release(id: string): Promise<void>;
  /** Ends every lease: for a database only this process uses (SQLite), whose claims died with it. */
  releaseAll(): Promise<void>;
  /** Makes a delivery due now; `redelivery` when it had ended (one more attempt, no retries). */
  redeliver(id: string, now: number, redelivery: boolean): Promise<void>;
}
