import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryOptions {
  /** True for failures worth another attempt (the database is not up yet); others end the start. */
  readonly retryable: (error: unknown) => boolean;
  readonly onRetry: (error: unknown, attempt: number, delayMs: number) => void;
  readonly signal: AbortSignal;
  /** @default 250 */
  readonly minDelayMs?: number;
  /** @default 10000 */
  readonly maxDelayMs?: number;
}

/**
 * Runs `task` until it succeeds, waiting longer after each retryable failure (exponential back-off
 * with jitter, capped); rejects at once on any other failure or when the signal aborts.
 */
export async function retryWithBackoff<T>(task: () => Promise<T>, options: RetryOptions): Promise<T> {
  const min = options.minDelayMs ?? 250;
  const max = options.maxDelayMs ?? 10_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (error) {
      if (!options.retryable(error) || options.signal.aborted) throw error;
      const delayMs = Math.round(Math.min(max, min * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5));
      options.onRetry(error, attempt, delayMs);
      await sleep(delayMs, undefined, { signal: options.signal });
    }
  }
}
