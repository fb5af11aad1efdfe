import type { SubscriptionEvent_ConfigEvent } from '@realtime-config/protocol';
import { nextDelay } from '@realtime-config/client/reconnect';
import { microsFromTimestamp, timestampFromMicros } from '@realtime-config/protocol';
import { useEffect, useRef, useState } from 'react';
import { liveClient } from './live-transport';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

/** Microseconds since the epoch of a REST time (`2026-01-02T03:04:05.123456Z`). */
export function isoToMicros(iso: string): number {
  const match = /^(.*?)(?:\.(\d{1,6})\d*)?Z$/.exec(iso);
  if (!match) return Date.parse(iso) * 1000;
  const fraction = (match[2] ?? '').padEnd(6, '0');
  return Date.parse(`${match[1]}Z`) * 1000 + Number(fraction);
}

/** About this long between reconnects (± 20 %, then growing: nextDelay), so consoles do not return in lock-step. */
const RECONNECT_DELAY_MS = 2000;

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Keeps StartSubscribe open for a version while the page shows it and hands each change to `onEvents`.
 * It starts after `sinceMicros` (the newest change the page loaded) and resumes after the last event
 * it saw, so no change is missed across reconnects.
 */
export function useLiveVersion(
  serviceId: string,
  versionId: string,
  sinceMicros: number | undefined,
  onEvents: (events: readonly SubscriptionEvent_ConfigEvent[]) => void,
): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const handler = useRef(onEvents);
  handler.current = onEvents;
  const ready = sinceMicros !== undefined;
  const since = useRef(sinceMicros ?? 0);
  if (!ready) since.current = 0;
  else if (since.current === 0) since.current = sinceMicros;

  useEffect(() => {
    if (!ready) return;
    const abort = new AbortController();
    void (async () => {
      let failedAttempts = 0;
      while (!abort.signal.aborted) {
        try {
          const stream = liveClient.startSubscribe(
            { serviceId, versionId, timestamp: timestampFromMicros(since.current) },
            {
              signal: abort.signal,
              onHeader: () => {
                failedAttempts = 0; // the stream opened
              },
            },
          );
          setStatus('live');
          for await (const message of stream) {
            for (const event of message.events) {
              if (event.timestamp) since.current = Math.max(since.current, microsFromTimestamp(event.timestamp));
            }
            if (message.events.length > 0) handler.current(message.events);
          }
        } catch {
          // Dropped, refused or the server restarted: try again after a pause, from the last event seen.
        }
        if (abort.signal.aborted) break;
        setStatus('reconnecting');
        failedAttempts++;
        await wait(nextDelay(failedAttempts, RECONNECT_DELAY_MS, Math.random), abort.signal);
      }
    })();
    return () => abort.abort();
  }, [serviceId, versionId, ready]);

  return status;
}
