import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/** An entry a client owns: only that client sets it, so there are no generation conflicts. */
export interface OwnedEntry {
  readonly id: string;
  generation: number;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly cookie: string;
  readonly serviceId: string;
  readonly versionId: string;
  /** One array of entries per client; each batch sets all of a client's entries. */
  readonly entriesPerClient: readonly OwnedEntry[][];
  readonly warmUpMs: number;
  readonly measureMs: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly entries: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latenciesMs: Float64Array;
}

/**
 * Each client sends `PUT /api/configentries/{s}/{v}/set` with its own entries back to back, over
 * its own keep-alive connection, using the generations the previous answer returned. Requests
 * that start during the warm-up are not counted; the measured window runs from the end of the
 * warm-up until the last request that started inside it has been answered.
 */
export async function runBatchSetLoad(options: LoadOptions): Promise<LoadResult> {
  const clients = options.entriesPerClient.length;
  const pool = new Pool(options.baseUrl, { connections: clients, pipelining: 1, keepAliveTimeout: 60_000 });
  const path = `/api/configentries/${options.serviceId}/${options.versionId}/set`;
  const headers = { 'content-type': 'application/json', cookie: options.cookie };
  const start = performance.now();
  const measureFrom = start + options.warmUpMs;
  const stopAt = measureFrom + options.measureMs;
  const latencies: number[] = [];
  let requests = 0;
  let entries = 0;
  let errors = 0;
  let value = 0;

  async function client(owned: OwnedEntry[]): Promise<void> {
    for (;;) {
      const began = performance.now();
      if (began >= stopAt) return;
      const counted = began >= measureFrom;
      const body = JSON.stringify(
        owned.map((e) => ({ id: e.id, rawValue: String(value++), generation: e.generation })),
      );
      let ok = false;
      try {
        const res = await pool.request({ method: 'PUT', path, headers, body });
        const text = await res.body.text();
        if (res.statusCode === 200) {
          const answer = JSON.parse(text) as Array<{ id: string; generation: number }>;
          for (const updated of answer) {
            const mine = owned.find((e) => e.id === updated.id);
            if (mine) mine.generation = updated.generation;
          }
          ok = true;
        } else {
          await resync(owned);
        }
      } catch {
        await resync(owned).catch(() => undefined);
      }
      if (!counted) continue;
      latencies.push(performance.now() - began);
      requests++;
      if (ok) entries += owned.length;
      else errors++;
    }
  }

  /** After a failed request, read the stored generations so the next batch can succeed. */
  async function resync(owned: OwnedEntry[]): Promise<void> {
    const res = await pool.request({
      method: 'GET',
      path: path.slice(0, -'/set'.length),
      headers: { cookie: options.cookie },
    });
    const list = (await res.body.json()) as Array<{ id: string; generation: number }>;
    for (const stored of list) {
      const mine = owned.find((e) => e.id === stored.id);
      if (mine) mine.generation = stored.generation;
    }
  }

  try {
    await Promise.all(options.entriesPerClient.map((owned) => client(owned)));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - measureFrom) / 1000;
  return { requests, entries, errors, seconds, latenciesMs: Float64Array.from(latencies).sort() };
}

/** The value at quantile q (0..1) of sorted values, nearest-rank. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}
