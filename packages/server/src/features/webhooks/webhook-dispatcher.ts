import type { Logger } from 'pino';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryRecord,
  UnitOfWork,
  WebhookRecord,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { DELIVERY_TIMEOUT_MS, signedHeaders, type WebhookSender } from './webhook-sender.js';

/** Sends at once per instance; a receiver that hangs holds one of them for at most 10 s. */
const MAX_IN_FLIGHT = 16;
/**
 * A claim lasts this long: longer than an attempt can take, so a claimed delivery is never sent
 * twice at once; short enough that one claimed by an instance that died is sent again soon after.
 */
const LEASE_MICROS = (DELIVERY_TIMEOUT_MS + 5_000) * 1000;
/**
 * How often an idle dispatcher looks for due deliveries it was not woken for: those another
 * instance wrote and could not send (it died), and claims that lapsed.
 */
const POLL_MS = 3000;

/**
 * The secrets a delivery is signed with now: the current one, and the previous until it expires.
 * None when the current one cannot be opened (the master key that sealed it is not configured).
 */
export function signingSecrets(webhook: WebhookRecord, nowMicros: number): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = webhook;
  if (secret === null) return [];
  return previousSecret !== null && previousSecretExpiresAt !== null && previousSecretExpiresAt > nowMicros
    ? [secret, previousSecret]
    : [secret];
}

/** The error of an attempt that could not be signed: nothing was sent. */
const UNSIGNABLE =
  'not sent: the signing secret cannot be decrypted (its master key is neither Secrets:MasterKeyFile nor in Secrets:PreviousKeyFiles)';

/** ±10 % */
const jitter = (seconds: number): number => seconds * (0.9 + Math.random() * 0.2);

/**
 * Sends the outbox: claims due deliveries (a lease, FOR UPDATE SKIP LOCKED on PostgreSQL, so several
 * instances share the work and never send one delivery at once), sends each, and records the attempt:
 * a 2xx ends it as succeeded; a 410 disables the webhook and ends it as failed; anything else waits
 * for the next step of the retry schedule (±10 % jitter), after whose last step it is failed.
 * No attempt is made before the delivery's `nextAttemptAt`: between claims the loop sleeps until the
 * earliest pending delivery is due, at most a few seconds. Woken by the commits of this instance that
 * wrote deliveries, by redeliveries, and when a send ends.
 */
export class WebhookDispatcher {
  private running = false;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly stopSends = new AbortController();
  private readonly unrecorded: Array<{
    id: string;
    outcome: AttemptOutcome | null;
    claimed?: DeliveryRecord;
    disable?: string;
    resolve: () => void;
    reject: (error: unknown) => void;
  }> = [];
  private recording: Promise<void> | null = null;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly retrySchedule: readonly number[],
    /**
     * Only this process uses the database (SQLite): claims left by a process that died are its own
     * and are released at start, instead of waiting for their lease to pass.
     */
    private readonly soleInstance: boolean,
  ) {}

  start(): void {
    if (this.running || this.stopping) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Looks for due deliveries now (a commit wrote some, or a send ended and freed its place). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Stops claiming, ends the sends under way (their claims are released without an attempt, so
   * another instance, or this one after a restart, sends them at once) and waits for the loop.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSends.abort();
    this.wake();
    await this.loopDone;
    await Promise.all(this.inFlight.values());
    await this.sender.close();
  }

  private async loop(): Promise<void> {
    if (this.soleInstance) {
      await this.uow
        .write((ctx) => ctx.webhooks.releaseAll())
        .catch((err: unknown) => this.logger.warn({ err }, 'webhook claims of an earlier run could not be released'));
    }
    while (!this.stopping) {
      this.woken = false;
      const free = MAX_IN_FLIGHT - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      let nextDue: number | undefined;
      try {
        // A follower's standby takes no writes (docs/regions.md): it claims nothing until promoted.
        if (free > 0 && !this.uow.readOnly) {
          const now = this.clock.nowMicros();
          claimed = await this.uow.write((ctx) => ctx.webhooks.claimDue(now, now + LEASE_MICROS, free));
        }
        if (claimed.length < free) nextDue = await this.uow.read.webhooks.nextDue(this.clock.nowMicros());
      } catch (err) {
        this.logger.warn({ err }, 'webhook deliveries could not be claimed; trying again');
      }
      for (const item of claimed) this.launch(item);
      if (this.stopping) break;
      if (claimed.length > 0 && claimed.length === free) continue;
      if (this.woken) continue;
      // Until the earliest retry is due (a claim never takes one early), or the next look around.
      const untilDue =
        nextDue === undefined ? POLL_MS : Math.max(0, Math.ceil((nextDue - this.clock.nowMicros()) / 1000));
      await this.sleep(Math.min(POLL_MS, untilDue));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  private launch({ delivery, webhook }: ClaimedDelivery): void {
    const done = this.attempt({ delivery, webhook }, this.stopSends.signal)
      .catch((err: unknown) =>
        this.logger.warn({ err, deliveryId: delivery.id }, 'a webhook delivery failed to record'),
      )
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, done);
  }

  private async attempt({ delivery, webhook }: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const nowMicros = this.clock.nowMicros();
    const secrets = signingSecrets(webhook, nowMicros);
    const headers = signedHeaders(delivery.id, new Date(nowMicros / 1000), delivery.payload, secrets);
    const result =
      secrets.length > 0
        ? await this.sender.send(webhook.url, headers, delivery.payload, signal)
        : { statusCode: null, durationMs: 0, error: UNSIGNABLE };
    if (this.stopSends.signal.aborted && result.error !== null) return this.record({ id: delivery.id, outcome: null });
    const attempt = {
      at: nowMicros,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
    };
    const gone = result.statusCode === 410;
    if (gone) this.logger.info({ webhookId: webhook.id }, 'a webhook answered 410 Gone and is disabled');
    await this.record({
      id: delivery.id,
      outcome: this.outcome(delivery, attempt, gone),
      claimed: delivery,
      ...(gone ? { disable: webhook.id } : {}),
    });
  }

  /**
   * Records the end of an attempt (or the release of a claim). Ends that arrive while a record is
   * being written are written together in the next transaction: with many webhooks, the results
   * take few turns of the database's writer (SQLite has one), and the REST writes wait less.
   */
  private record(item: {
    id: string;
    outcome: AttemptOutcome | null;
    claimed?: DeliveryRecord;
    disable?: string;
  }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ ...item, resolve, reject });
      this.recording ??= this.writeRecords();
    });
  }

  private async writeRecords(): Promise<void> {
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0);
      try {
        await this.uow.write(async (ctx) => {
          for (const { id, outcome, claimed } of batch) {
            if (outcome && claimed) await ctx.webhooks.finishAttempt(id, outcome, claimed);
            else await ctx.webhooks.release(id);
          }
          const gone = batch.flatMap((item) => (item.disable ? [item.disable] : []));
          await ctx.webhooks.disable(gone, this.clock.nowMicros());
        });
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.recording = null;
  }

  private outcome(delivery: ClaimedDelivery['delivery'], attempt: DeliveryAttempt, gone: boolean): AttemptOutcome {
    const attempts = [...delivery.attempts, attempt];
    if (attempt.error === null)
      return { attempts, status: 'succeeded', failures: delivery.failures, nextAttemptAt: null };
    const failures = delivery.failures + (delivery.redelivery ? 0 : 1);
    const wait = this.retrySchedule[failures - 1];
    if (gone || delivery.redelivery || wait === undefined)
      return { attempts, status: 'failed', failures, nextAttemptAt: null };
    return {
      attempts,
      status: 'pending',
      failures,
      nextAttemptAt: this.clock.nowMicros() + Math.round(jitter(wait) * 1_000_000),
    };
  }
}
