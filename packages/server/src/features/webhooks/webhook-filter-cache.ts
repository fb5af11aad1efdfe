import type { Stores, WebhookFilter } from '../../core/index.js';

/**
 * How long another instance may use what it read of a service's webhooks (PostgreSQL). A change
 * that lets a webhook receive more (create, replace: enable, wider filters) answers only after this
 * (`settle`), so every change committed after its answer, on any instance, sees it. 0.5 s keeps
 * the wait of those rare answers short and costs a busy service two reads a second per instance.
 */
export const SHARED_CACHE_MILLIS = 500;

interface Cached {
  readonly filters: readonly WebhookFilter[];
  /** performance.now() before the read: the state read is at least this recent. */
  readonly readAt: number;
}

/**
 * Which webhooks (their filters) each service has, so that a write of a service without webhooks
 * (the common case) reads none in its transaction.
 *
 * - One process (SQLite): exact. The commands that change webhooks call `forget` after their commit;
 *   writes are serialized, so the next one reads again.
 * - Several instances (PostgreSQL): this instance's own changes are forgotten at once as above;
 *   another instance's are seen at most `SHARED_CACHE_MILLIS` later, and the commands that let a
 *   webhook receive more wait that long before answering (`settle`). A NOTIFY would arrive sooner
 *   but with no bound: the answer could overtake it.
 * - Fewer: a webhook deleted or disabled since it was read is dropped when deliveries are written
 *   (`enabledAmong`, in the writing transaction), so a stale entry never writes a delivery for it.
 */
export class WebhookFilterCache {
  private readonly byService = new Map<string, Cached>();
  /** Bumped by every `forget`: a read that started before one is not kept. */
  private epoch = 0;

  constructor(
    /** Null: one process, entries are exact until forgotten. */
    private readonly sharedMillis: number | null,
    private readonly maxServices = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The enabled webhooks' filters of a service: cached, or read in the caller's transaction. */
  async filtersOf(stores: Pick<Stores, 'webhooks'>, serviceId: string): Promise<readonly WebhookFilter[]> {
    const cached = this.byService.get(serviceId);
    if (cached && (this.sharedMillis === null || this.now() - cached.readAt < this.sharedMillis)) {
      return cached.filters;
    }
    const epoch = this.epoch;
    const readAt = this.now();
    const filters = await stores.webhooks.enabledFilters(serviceId);
    if (epoch === this.epoch) {
      if (this.byService.size >= this.maxServices) this.byService.clear();
      this.byService.set(serviceId, { filters, readAt });
    }
    return filters;
  }

  /** After the commit of a change to a service's webhooks on this instance. */
  forget(serviceId: string): void {
    this.epoch += 1;
    this.byService.delete(serviceId.toLowerCase());
  }

  /** Resolves once no instance can still use what it read before now (at once with one process). */
  settle(): Promise<void> {
    const wait = this.sharedMillis;
    if (wait === null) return Promise.resolve();
    // A little more than the bound: timers may fire a moment early.
    return new Promise((resolve) => setTimeout(resolve, wait + 20));
  }
}
