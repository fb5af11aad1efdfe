/**
 * Timing helpers shared by the hot-path benchmarks: latency of calls made one after another (back
 * to back or with pauses between them), and the REST write of one value.
 */
import { randomBytes } from 'node:crypto';
import { nowMs, percentile, sleep } from './common.js';
import type { RestClient } from './server.js';

const KEY = 'Bench:Seq';

export interface Figures {
  p50: number;
  p99: number;
}

export function figures(samples: number[]): Figures {
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

/** Latencies of `count` calls of `call`, with `pause()` ms between them (back to back when 0). */
export async function timeCalls(
  count: number,
  call: () => Promise<void>,
  pause: () => number = () => 0,
): Promise<Figures> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const wait = pause();
    if (wait > 0) await sleep(wait);
    const started = nowMs();
    await call();
    samples.push(nowMs() - started);
  }
  return figures(samples);
}

/** The REST write of one value, over one keep-alive connection signed in as the admin. */
export async function singleSetter(
  rest: RestClient,
): Promise<{ set: (value: string) => Promise<void>; ids: string[] }> {
  const serviceId = await rest.createService(`hot-${randomBytes(4).toString('hex')}`);
  const versionId = await rest.createVersion(serviceId, '1.0.0');
  const entry = await rest.createEntry(serviceId, versionId, KEY, 'initial');
  let generation = entry.generation;
  return {
    ids: [serviceId, versionId],
    set: async (value) => {
      const [updated] = await rest.call<Array<{ generation: number }>>(
        'PUT',
        `/api/configentries/${serviceId}/${versionId}/set`,
        [{ id: entry.id, rawValue: value, generation }],
      );
      generation = updated?.generation ?? generation + 1;
    },
  };
}
