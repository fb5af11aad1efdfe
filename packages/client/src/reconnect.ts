/**
 * When to try again after a lost or refused change stream: the one rule of the SDK's `connect`,
 * `watchVersion` and the web console, so that a fleet does not reconnect in lock-step after a
 * server restart. It imports nothing, so browsers use it too (`@realtime-config/client/reconnect`).
 */

/** Attempts in a row that wait about `interval` (± 20 %) before the wait grows. */
export const STEADY_ATTEMPTS = 3;
/** The longest wait between attempts, in milliseconds. */
export const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * Milliseconds to wait before reconnect attempt `attempt` (1 for the first attempt after the
 * stream was lost, 2 for the next when that one failed too, …):
 * - attempts 1 to 3: `interval` ± a random 20 % (uniform in [0.8, 1.2) × interval);
 * - later attempts: a random time up to min(30 s, interval × 2^attempt) (full jitter).
 *
 * `random` returns a number in [0, 1) (`Math.random`; tests pass a seeded source).
 *
 * @example
 * ```ts
 * import { nextDelay } from '@realtime-config/client';
 *
 * let attempt = 0;
 * for (;;) {
 *   try {
 *     await follow(); // returns or throws when the stream is lost
 *     attempt = 0;
 *   } catch {
 *     await sleep(nextDelay(++attempt, 5000, Math.random));
 *   }
 * }
 * ```
 */
export function nextDelay(attempt: number, interval: number, random: () => number): number {
  const n = Math.max(1, Math.floor(attempt));
  if (n <= STEADY_ATTEMPTS) return interval * (0.8 + 0.4 * random());
  const cap = Math.min(MAX_RECONNECT_DELAY_MS, interval * 2 ** Math.min(n, 30));
  return random() * cap;
}

/**
 * The wait after a refusal that named one (`retry-after-ms`, a server at its stream limit): at
 * least what it asked, plus up to 20 % so the refused do not come back together. Otherwise
 * {@link nextDelay}.
 */
export function delayAfter(
  retryAfterMs: number | undefined,
  attempt: number,
  interval: number,
  random: () => number,
): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, 10 * MAX_RECONNECT_DELAY_MS) * (1 + 0.2 * random());
  }
  return nextDelay(attempt, interval, random);
}
