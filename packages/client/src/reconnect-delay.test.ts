import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_VERSION } from './internal/sdk-version.js';
import { encodeLabels } from './internal/metadata.js';
import { delayAfter, MAX_RECONNECT_DELAY_MS, nextDelay } from './reconnect.js';
import { seededRandom } from '@realtime-config/test-support/seeded-random';

const SAMPLES = 20_000;
const draw = (attempt: number, interval: number, seed: number): number[] => {
  const random = seededRandom(seed);
  return Array.from({ length: SAMPLES }, () => nextDelay(attempt, interval, random));
};

/** Counts of the samples in `buckets` equal slices of [low, high). */
function histogram(samples: readonly number[], low: number, high: number, buckets: number): number[] {
  const counts = new Array<number>(buckets).fill(0);
  for (const s of samples) counts[Math.min(buckets - 1, Math.floor(((s - low) / (high - low)) * buckets))]! += 1;
  return counts;
}

describe('nextDelay: when to reconnect', () => {
  it('spreads the first three attempts uniformly over the interval ± 20 %', () => {
    for (const attempt of [1, 2, 3]) {
      const samples = draw(attempt, 5000, attempt);
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(4000);
      expect(Math.max(...samples)).toBeLessThan(6000);
      const mean = samples.reduce((a, b) => a + b, 0) / SAMPLES;
      expect(Math.abs(mean - 5000)).toBeLessThan(25);
      // Ten equal buckets of [4000, 6000) each hold about a tenth: no lock-step, no clustering.
      for (const count of histogram(samples, 4000, 6000, 10)) {
        expect(count).toBeGreaterThan(SAMPLES / 10 - 300);
        expect(count).toBeLessThan(SAMPLES / 10 + 300);
      }
    }
  });

  it('then waits a random time up to min(30 s, interval × 2^attempt), uniformly (full jitter)', () => {
    const cases: Array<[attempt: number, interval: number, cap: number]> = [
      [4, 1000, 16_000],
      [5, 200, 6400],
      [5, 5000, MAX_RECONNECT_DELAY_MS],
      [40, 5000, MAX_RECONNECT_DELAY_MS],
    ];
    for (const [attempt, interval, cap] of cases) {
      const samples = draw(attempt, interval, attempt * 31 + interval);
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...samples)).toBeLessThan(cap);
      expect(Math.max(...samples)).toBeGreaterThan(cap * 0.99);
      const mean = samples.reduce((a, b) => a + b, 0) / SAMPLES;
      expect(Math.abs(mean - cap / 2)).toBeLessThan(cap * 0.01);
      for (const count of histogram(samples, 0, cap, 10)) {
        expect(count).toBeGreaterThan(SAMPLES / 10 - 300);
        expect(count).toBeLessThan(SAMPLES / 10 + 300);
      }
    }
  });

  it('gives the same delays for the same random source, and maps its ends to the ends of the range', () => {
    expect(draw(2, 1000, 7).slice(0, 5)).toEqual(draw(2, 1000, 7).slice(0, 5));
    expect(nextDelay(1, 1000, () => 0)).toBe(800);
    expect(nextDelay(3, 1000, () => 0.5)).toBe(1000);
    expect(nextDelay(4, 1000, () => 0)).toBe(0);
    expect(nextDelay(0, 1000, () => 0)).toBe(800); // counted as the first attempt
  });

  it("waits at least a refusal's retry-after-ms, plus up to 20 %", () => {
    const random = seededRandom(99);
    const samples = Array.from({ length: SAMPLES }, () => delayAfter(1500, 1, 5000, random));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(1500);
    expect(Math.max(...samples)).toBeLessThan(1800);
    expect(delayAfter(undefined, 1, 5000, () => 0.5)).toBe(5000);
  });
});

describe('the metadata the SDK sends', () => {
  it('encodes labels as k=v pairs with %, , and = percent-encoded', () => {
    expect(encodeLabels({ region: 'eu-west-1', team: 'pay,ments', 'a=b': '50%' })).toBe(
      'region=eu-west-1,team=pay%2Cments,a%3Db=50%25',
    );
    expect(encodeLabels({})).toBe('');
  });

  it('names the version of this package', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
  });
});
