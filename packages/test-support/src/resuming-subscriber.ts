import type * as grpc from '@grpc/grpc-js';
import { microsFromTimestamp, timestampFromMicros, type SubscriptionEvent } from '@realtime-config/protocol';
import { GrpcTestClient } from './grpc-client.js';

/** One ConfigEvent as a subscriber saw it; `value` null means deleted (tests never set null values). */
export interface ObservedEvent {
  readonly key: string;
  readonly value: string | null;
  readonly generation: number;
  /** Microseconds. */
  readonly timestamp: number;
}

/** One StartSubscribe call from request to status. */
export interface StreamSegment {
  /** The `timestamp` the call was made with. */
  readonly requestTimestamp: number;
  /** Every SubscriptionEvent received, in order; each one's ConfigEvents. */
  readonly messages: ObservedEvent[][];
  /** The final status; undefined while the call is open. */
  status: { code: grpc.status; details: string } | undefined;
  /** The test cancelled it on purpose (the client "went away" and came back). */
  interrupted: boolean;
}

export interface ResumingSubscriberOptions {
  readonly name: string;
  /** host:port */
  readonly address: string;
  readonly serviceId: string;
  readonly versionId: string;
  /** Timestamp of the first call (µs): 0 for everything, or the newest timestamp of a GetConfig snapshot. */
  readonly startTimestamp?: number;
  /** What the client already holds when it starts (a GetConfig snapshot). */
  readonly initialView?: readonly ObservedEvent[];
  /** Wait before reconnecting, like the SDK's PollingInterval (shortened): [min, max] ms. */
  readonly reconnectDelayMs?: readonly [number, number];
}

export function observedEventsOf(message: SubscriptionEvent): ObservedEvent[] {
  return message.events.map((e) => ({
    key: e.key,
    value: e.value ?? null,
    generation: e.generation,
    timestamp: e.timestamp ? microsFromTimestamp(e.timestamp) : 0,
  }));
}

/**
 * A StartSubscribe client that behaves like the SDK: whenever its stream ends, for whatever reason,
 * it waits a little and subscribes again with the timestamp of the last event it saw. It records
 * every call (segment) and every message, and keeps the view the events build.
 */
export class ResumingSubscriber {
  readonly segments: StreamSegment[] = [];
  /** Key → latest state seen; a deletion removes the key. */
  readonly view = new Map<string, ObservedEvent>();
  /** Timestamp of the last event seen; what a reconnect asks for. */
  lastTimestamp: number;
  readonly startTimestamp: number;
  private readonly client: GrpcTestClient;
  private call: grpc.ClientReadableStream<SubscriptionEvent> | undefined;
  private currentSegment: StreamSegment | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly options: ResumingSubscriberOptions) {
    this.startTimestamp = options.startTimestamp ?? 0;
    this.lastTimestamp = this.startTimestamp;
    for (const e of options.initialView ?? []) this.view.set(e.key, e);
    // Its own connection (not grpc-js's shared subchannel), reconnecting quickly after a restart.
    this.client = new GrpcTestClient(options.address, undefined, {
      'grpc.use_local_subchannel_pool': 1,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
    });
  }

  get name(): string {
    return this.options.name;
  }

  get initialView(): readonly ObservedEvent[] {
    return this.options.initialView ?? [];
  }

  /** Every event received over its whole life, in order. */
  get events(): ObservedEvent[] {
    return this.segments.flatMap((s) => s.messages.flat());
  }

  /** Segments the test cancelled on purpose. */
  get interruptions(): number {
    return this.segments.filter((s) => s.interrupted).length;
  }

  /** True while a call is open and has received at least one message. */
  get streaming(): boolean {
    return this.currentSegment !== undefined && this.currentSegment.messages.length > 0;
  }

  start(): void {
    this.open();
  }

  /** Cancels the open call, as a client that goes away would; it comes back after the usual delay. */
  interrupt(): boolean {
    if (!this.call || !this.currentSegment) return false;
    this.currentSegment.interrupted = true;
    this.call.cancel();
    return true;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.call?.cancel();
    this.client.close();
    this.notify();
  }

  /** Polls the predicate after every message (and every 50 ms); rejects with `what` on timeout. */
  async until(predicate: (s: this) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) {
        throw new Error(
          `${this.name}: ${what} did not happen within ${timeoutMs} ms (last timestamp ${this.lastTimestamp}, ` +
            `${this.segments.length} calls, last status ${JSON.stringify(this.segments.at(-1)?.status)})`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, 50);
        this.waiters.add(wake);
      });
    }
  }

  private notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private open(): void {
    if (this.stopped) return;
    const segment: StreamSegment = {
      requestTimestamp: this.lastTimestamp,
      messages: [],
      status: undefined,
      interrupted: false,
    };
    this.segments.push(segment);
    const sub = this.client.subscribe({
      serviceId: this.options.serviceId,
      versionId: this.options.versionId,
      timestamp: timestampFromMicros(this.lastTimestamp),
    });
    const call = sub.call;
    this.call = call;
    this.currentSegment = segment;
    call.on('data', (message: SubscriptionEvent) => {
      if (this.call !== call) return; // after our own cancel: not seen
      const events = observedEventsOf(message);
      segment.messages.push(events);
      for (const e of events) {
        this.lastTimestamp = Math.max(this.lastTimestamp, e.timestamp);
        if (e.value === null) this.view.delete(e.key);
        else this.view.set(e.key, e);
      }
      this.notify();
    });
    call.on('status', (status: grpc.StatusObject) => {
      segment.status = { code: status.code, details: status.details };
      if (this.call !== call) return;
      this.call = undefined;
      this.currentSegment = undefined;
      this.notify();
      if (this.stopped) return;
      const [min, max] = this.options.reconnectDelayMs ?? [100, 300];
      this.timer = setTimeout(() => this.open(), min + Math.random() * (max - min));
    });
  }
}

/**
 * What every subscriber must observe, whatever happened to its connection: the events of its
 * whole life (across reconnects) are in change order. Events of one change share a timestamp and
 * arrive in one message; so across messages timestamps strictly increase, within a message they
 * never decrease, no key repeats within one timestamp, and nothing is at or before the timestamp
 * a call asked for. Returns the violations (empty when fine).
 */
export function orderingProblems(
  subscriber: Pick<ResumingSubscriber, 'name' | 'segments' | 'startTimestamp'>,
): string[] {
  const problems: string[] = [];
  let previous = subscriber.startTimestamp;
  subscriber.segments.forEach((segment, s) => {
    segment.messages.forEach((message, m) => {
      const where = `${subscriber.name} call ${s} message ${m}`;
      if (message.length === 0) {
        problems.push(`${where}: an empty SubscriptionEvent`);
        return;
      }
      const first = message[0] as ObservedEvent;
      if (first.timestamp <= previous) {
        problems.push(`${where}: timestamp ${first.timestamp} (${first.key}) not after the previous ${previous}`);
      }
      if (first.timestamp <= segment.requestTimestamp) {
        problems.push(`${where}: timestamp ${first.timestamp} not after the requested ${segment.requestTimestamp}`);
      }
      const seen = new Set<string>();
      let last = first.timestamp;
      for (const e of message) {
        if (e.timestamp < last) problems.push(`${where}: timestamp ${e.timestamp} (${e.key}) goes back from ${last}`);
        const id = `${e.timestamp}\u0000${e.key}`;
        if (seen.has(id)) problems.push(`${where}: ${e.key} twice at ${e.timestamp}`);
        seen.add(id);
        last = Math.max(last, e.timestamp);
      }
      previous = Math.max(previous, last);
    });
  });
  return problems;
}
