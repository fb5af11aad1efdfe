import type { WatchOptions, WatchStatus } from './client-options.js';
import { ConfigError } from './errors.js';
import type { ValueTypeName } from './schema.js';
import { subscribeEvents } from './internal/calls.js';
import { resolveWatchOptions } from './internal/options.js';
import { microsFromTimestamp, valueTypeName, type SubscriptionEvent } from './internal/protocol.js';
import { isPermanent, Rpc } from './internal/rpc.js';
import { sleep } from './internal/sleep.js';
import { delayAfter } from './reconnect.js';

/** One change of one key as the stream carries it: raw text, not parsed by a schema. */
export interface WatchedChange {
  /** `Group:Name`. */
  readonly key: string;
  /** The new raw value; null when the value was cleared or the key deleted. */
  readonly value: string | null;
  /** The entry's value type; `Unknown` for an entry registered without one. */
  readonly valueType: ValueTypeName | 'Unknown';
  /** The entry's generation after the change. */
  readonly generation: number;
  /** When the change was made. */
  readonly timestamp: Date;
  /** The same time in microseconds since the epoch (the stream's own precision, strictly increasing). */
  readonly timestampMicros: number;
}

/** One wire entry (a GetConfig entry or a stream event) as a raw change; `fallbackMicros` when it carries no time. */
export function watchedChangeOf(
  e: {
    key: string;
    value?: string;
    type: number;
    generation: number;
    timestamp?: Parameters<typeof microsFromTimestamp>[0];
  },
  fallbackMicros: number,
): WatchedChange {
  const micros = e.timestamp ? microsFromTimestamp(e.timestamp) : fallbackMicros;
  return {
    key: e.key,
    value: e.value ?? null,
    valueType: valueTypeName(e.type),
    generation: e.generation,
    timestamp: new Date(Math.floor(micros / 1000)),
    timestampMicros: micros,
  };
}

function changesOf(event: SubscriptionEvent, previous: number): WatchedChange[] {
  return event.events.map((e) => watchedChangeOf(e, previous));
}

/**
 * Follows every change of one version as raw values, without a schema and without registering
 * anything: for tools, dashboards and bridges (the `realtime-config watch` command is built on it).
 * Each iteration gives the changes of one stream event, in order. A lost stream is reopened after
 * `pollingInterval` from the last change seen, so none is missed or given twice.
 *
 * The iteration ends without an error when `signal` aborts or the loop is left (`break`), and the
 * stream on the server ends with it. It throws a {@link ConfigError} when retrying cannot help:
 * `NOT_FOUND` (no such version), `UNAUTHENTICATED`, `PERMISSION_DENIED`, `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * import { watchVersion } from '@realtime-config/client';
 *
 * for await (const changes of watchVersion({ url: 'http://localhost:8080', serviceId, versionId, since: new Date() })) {
 *   for (const c of changes) console.log(`${c.key} = ${c.value ?? '(null)'}`);
 * }
 * ```
 * @throws ConfigError `INVALID_ARGUMENT` at once for a bad option.
 */
export function watchVersion(options: WatchOptions): AsyncIterable<WatchedChange[]> {
  const resolved = resolveWatchOptions(options);
  const onStatus = options.onStatus;
  const report = (status: WatchStatus, cause?: ConfigError): void => {
    try {
      onStatus?.(status, cause);
    } catch {
      // A status callback that throws must not end the watch.
    }
  };
  return {
    async *[Symbol.asyncIterator]() {
      const stop = new AbortController();
      const abort = (): void => stop.abort();
      resolved.signal?.addEventListener('abort', abort, { once: true });
      if (resolved.signal?.aborted) stop.abort();
      const rpc = new Rpc(resolved);
      let after = resolved.after;
      let lastReported: string | undefined;
      /** Attempts in a row that did not open the stream: the wait grows with them. */
      let failedAttempts = 0;
      const onOpen = (): void => {
        lastReported = undefined;
        failedAttempts = 0;
        report('live');
      };
      try {
        while (!stop.signal.aborted) {
          let retryAfterMs: number | undefined;
          try {
            const request = { serviceId: resolved.serviceId, versionId: resolved.versionId, after };
            for await (const event of subscribeEvents(rpc, request, stop.signal, onOpen)) {
              const changes = changesOf(event, after ?? 0);
              if (changes.length === 0) continue;
              after = Math.max(after ?? 0, ...changes.map((c) => c.timestampMicros));
              yield changes;
            }
            throw new ConfigError('UNAVAILABLE', `StartSubscribe at ${resolved.url}: the server ended the stream`);
          } catch (error) {
            if (stop.signal.aborted) break;
            const lost = error instanceof ConfigError ? error : new ConfigError('INTERNAL', String(error));
            if (isPermanent(lost)) throw lost;
            retryAfterMs = lost.retryAfterMs;
            // One report per outage and cause, not one per attempt.
            if (lost.message !== lastReported) {
              if (lastReported === undefined) report('reconnecting', lost);
              lastReported = lost.message;
              resolved.logger.warn(
                `realtime-config: ${lost.message}; reconnecting in about ${resolved.pollingInterval} ms`,
              );
            }
          }
          failedAttempts++;
          await sleep(delayAfter(retryAfterMs, failedAttempts, resolved.pollingInterval, Math.random), stop.signal);
        }
      } finally {
        resolved.signal?.removeEventListener('abort', abort);
        stop.abort();
        rpc.close();
      }
    },
  };
}
