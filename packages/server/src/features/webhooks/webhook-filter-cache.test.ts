import { describe, expect, it } from 'vitest';
import type { Stores, WebhookFilter } from '../../core/index.js';
import { WebhookFilterCache } from './webhook-filter-cache.js';

/** A webhook store that answers `filters` and counts its reads. */
function fakeStores(filters: WebhookFilter[]) {
  const counter = { reads: 0, pending: null as null | (() => void) };
  const stores = {
    webhooks: {
      enabledFilters: async () => {
        counter.reads += 1;
        if (counter.pending === null) return [...filters];
        await new Promise<void>((resolve) => (counter.pending = resolve));
        return [...filters];
      },
    },
  } as unknown as Pick<Stores, 'webhooks'>;
  return { stores, counter };
}

const hook: WebhookFilter = { id: 'h1', eventTypes: null, versionIds: null, keyPrefix: null };

describe('the webhook filter cache', () => {
  it('reads a service once; exact until forgotten with one process', async () => {
    const { stores, counter } = fakeStores([]);
    let now = 0;
    const cache = new WebhookFilterCache(null, 10, () => now);
    expect(await cache.filtersOf(stores, 's')).toEqual([]);
    now = 1e9;
    expect(await cache.filtersOf(stores, 's')).toEqual([]);
    expect(counter.reads).toBe(1);
    cache.forget('S');
    await cache.filtersOf(stores, 's');
    expect(counter.reads).toBe(2);
    await expect(cache.settle()).resolves.toBeUndefined();
  });

  it('keeps what it read for the shared bound only, with several instances', async () => {
    const { stores, counter } = fakeStores([hook]);
    let now = 0;
    const cache = new WebhookFilterCache(500, 10, () => now);
    expect(await cache.filtersOf(stores, 's')).toEqual([hook]);
    now = 499;
    await cache.filtersOf(stores, 's');
    expect(counter.reads).toBe(1);
    now = 500;
    await cache.filtersOf(stores, 's');
    expect(counter.reads).toBe(2);
    const started = performance.now();
    await cache.settle();
    expect(performance.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('does not keep a read that a forget overtook (it may predate the change)', async () => {
    const { stores, counter } = fakeStores([]);
    const cache = new WebhookFilterCache(null);
    counter.pending = () => undefined;
    const reading = cache.filtersOf(stores, 's');
    await Promise.resolve();
    cache.forget('s');
    const release = counter.pending;
    counter.pending = null;
    release?.();
    await reading;
    await cache.filtersOf(stores, 's');
    expect(counter.reads).toBe(2);
  });
});
