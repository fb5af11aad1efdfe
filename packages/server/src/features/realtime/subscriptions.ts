import {
  type ChangeHub,
  type ChangeNotice,
  type EntryChange,
  type TargetedInstance,
  type UnitOfWork,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { inTurns } from '../../platform/turns.js';
import { CONSOLE_SDK } from '../../protocol.js';
import { BackfillReads } from './backfill-reads.js';
import type { CredentialRechecks, RevokedCode } from './credential-rechecks.js';
import { anyTargeted, EventBatch, reaches, resolvedChanges, targetedBatches, type Audience } from './event-batch.js';
import type { PresentStream, StreamPresence } from './presence.js';
import { StreamAdmission, type AdmissionTicket, type StreamOrigin } from './stream-admission.js';
import { targetOf, type StreamClient } from './stream-client.js';

/** Where a subscriber's events go: a native HTTP/2 stream, or a Connect-ES server stream. */
export interface SubscriberSink {
  /** Sends a batch. Returns false when the subscriber cannot keep up or is gone; it is then dropped. */
  deliver(batch: EventBatch): boolean;
  /** Ends the stream with a status. */
  end(code: 'NOT_FOUND' | 'UNAVAILABLE' | RevokedCode, message: string): void;
}

export interface Subscription {
  /** Stops delivery (the client went away). Idempotent. */
  close(): void;
}

interface Subscriber {
  readonly sink: SubscriberSink;
  /** Whether it receives secret entries; the others never learn of them. */
  readonly audience: Audience;
  /** The instance it is, for the values resolved for it (docs/targeting.md). */
  readonly target: TargetedInstance;
  /** Timestamp of the last change sent; later changes only. */
  lastTimestamp: number;
  /** Changes that arrived while the backfill was being read; null once live. */
  buffered: ChangeNotice[] | null;
  /** Stops the recheck of its credentials. */
  unwatch?: () => void;
  /** The stream as the fleet sees it (who is connected, what it was sent). */
  presence?: PresentStream;
  /** Its place under the stream limits, given back when it leaves. */
  readonly ticket: AdmissionTicket;
}

interface VersionChannel {
  readonly subscribers: Set<Subscriber>;
  readonly stopListening: () => void;
  pending: ChangeNotice[];
  flushScheduled: boolean;
  /** A burst is still being written out, a slice per turn; the next waits for it. */
  sending: boolean;
}

/** The check a stream with credentials repeats while open (see CredentialRechecks). */
export interface StreamCredentials {
  /** Streams with equal keys share one recheck. */
  readonly key: string;
  readonly recheck: () => Promise<void>;
}

/** A stream to open: what it asks for, for whom, and where it comes from. */
export interface StreamRequest {
  readonly serviceId: string;
  readonly versionId: string;
  /** Changes strictly after this timestamp (µs). */
  readonly afterTimestamp: number;
  /** Whether it receives secret entries; `public` when absent. */
  readonly audience?: Audience;
  /** The credentials it checks again while open; null or absent for a stream without credentials. */
  readonly credentials?: StreamCredentials | null;
  /** What its client says of itself, for the fleet list. */
  readonly client?: StreamClient;
  /** Its connection and peer address, for the stream limits. */
  readonly origin?: StreamOrigin;
}

/** One burst of changes as every stream of the version is offered it. */
interface Burst {
  readonly notices: ChangeNotice[];
  /** Timestamps of its first and newest change. */
  readonly first: number;
  readonly newest: number;
  /** The batch of each audience, when it has changes for that audience. */
  readonly shared: { readonly secrets: EventBatch | undefined; readonly public: EventBatch | undefined };
  /** A stream's own batch, when an entry of the burst has overrides or a rollout. */
  readonly batchOf: ((subscriber: Subscriber) => EventBatch | undefined) | null;
}

export interface SubscriptionMetrics {
  onDelivered(events: number): void;
  onDropped(): void;
}

function entriesOf(notices: readonly ChangeNotice[], after: number): EntryChange[] {
  return notices.filter((n) => n.timestamp > after).flatMap((n) => n.entries);
}

/**
 * The realtime streams of every version: backfill, then live changes in commit order. One hub
 * listener per version with subscribers; each burst of changes is batched once and the same batch
 * (and its encoded frame) goes to every subscriber of the version. A burst that changes entries with
 * overrides is resolved per group of streams whose instances resolve alike (docs/targeting.md):
 * each group's batch is encoded once, and no stream receives a value resolved for other labels.
 */
export class Subscriptions {
  private readonly channels = new Map<string, VersionChannel>();
  private closing = false;

  private readonly metrics: SubscriptionMetrics | undefined;
  private readonly rechecks: CredentialRechecks | undefined;
  private readonly presence: StreamPresence | undefined;
  private readonly admission: StreamAdmission;
  private readonly backfills: BackfillReads;

  constructor(
    uow: UnitOfWork,
    private readonly hub: ChangeHub,
    options: {
      metrics?: SubscriptionMetrics;
      rechecks?: CredentialRechecks;
      presence?: StreamPresence;
      /** The stream limits; none when absent. */
      admission?: StreamAdmission;
    } = {},
  ) {
    this.metrics = options.metrics;
    this.rechecks = options.rechecks;
    this.presence = options.presence;
    this.admission =
      options.admission ?? new StreamAdmission({ maxStreams: Infinity, perConnection: 0, perAddress: 0 });
    this.backfills = new BackfillReads(uow);
  }

  /** Open streams. */
  get count(): number {
    return this.admission.count;
  }

  /**
   * Opens a subscription: registers for live changes first, then reads and sends the backfill (every
   * change after `afterTimestamp`, deletions included; the read is shared with the streams opening at
   * the same moment, see BackfillReads), then the changes that arrived meanwhile, so that nothing
   * falls between the two. Beyond a stream limit it throws RESOURCE_EXHAUSTED (see StreamAdmission).
   */
  async open(request: StreamRequest, sink: SubscriberSink): Promise<Subscription> {
    const { serviceId, versionId, afterTimestamp, credentials, client } = request;
    const audience = request.audience ?? 'public';
    if (this.closing) throw new AppError('UNAVAILABLE', 'The server is shutting down.');
    const ticket = this.admission.admit(request.origin, !credentials);
    // Registered before anything is read: a deletion of the version committed from here on is
    // buffered, and one committed before is seen by the check below.
    const target = targetOf(client);
    const subscriber: Subscriber = { sink, audience, target, lastTimestamp: afterTimestamp, buffered: [], ticket };
    const channel = this.channelFor(versionId);
    channel.subscribers.add(subscriber);
    // A web console's stream is a person looking at the version, not an instance of the application.
    if (client && this.presence && client.sdk !== CONSOLE_SDK) {
      subscriber.presence = this.presence.open(serviceId, versionId, client, afterTimestamp, audience);
    }
    if (credentials && this.rechecks) {
      subscriber.unwatch = this.rechecks.watch(credentials.key, credentials.recheck, (code, message) => {
        subscriber.sink.end(code, message);
        this.remove(versionId, subscriber);
      });
    }
    const subscription: Subscription = { close: () => this.remove(versionId, subscriber) };

    let batch: EventBatch | null;
    try {
      batch = await this.backfills.read({ serviceId, versionId, afterTimestamp, audience, target });
    } catch (error) {
      subscription.close();
      throw error;
    }
    if (!channel.subscribers.has(subscriber)) return subscription; // closed while reading

    // From here to going live nothing awaits, so no change can slip between the two.
    if (batch) {
      subscriber.lastTimestamp = batch.lastTimestamp;
      if (!this.send(subscriber, batch)) {
        this.drop(versionId, subscriber);
        return subscription;
      }
    }
    const missed = subscriber.buffered ?? [];
    subscriber.buffered = null;
    if (missed.length > 0) this.deliverTo(versionId, subscriber, missed);
    return subscription;
  }

  /** Ends every stream with UNAVAILABLE (shutdown): clients reconnect elsewhere and resume. */
  closeAll(message: string): void {
    this.closing = true;
    for (const [versionId, channel] of this.channels) {
      for (const subscriber of channel.subscribers) subscriber.sink.end('UNAVAILABLE', message);
      this.removeChannel(versionId, channel);
    }
  }

  private channelFor(versionId: string): VersionChannel {
    let channel = this.channels.get(versionId);
    if (!channel) {
      const created: VersionChannel = {
        subscribers: new Set(),
        pending: [],
        flushScheduled: false,
        sending: false,
        stopListening: this.hub.subscribe(versionId, (notice) => {
          created.pending.push(notice);
          if (!created.flushScheduled) {
            created.flushScheduled = true;
            // Changes that arrive in the same turn of the event loop go out as one event.
            setImmediate(() => this.flush(versionId, created));
          }
        }),
      };
      channel = created;
      this.channels.set(versionId, channel);
    }
    return channel;
  }

  private flush(versionId: string, channel: VersionChannel): void {
    channel.flushScheduled = false;
    // A burst still being written goes out whole first: no stream gets a change before an older one.
    if (channel.sending || this.channels.get(versionId) !== channel || channel.pending.length === 0) return;
    const notices = channel.pending;
    channel.pending = [];
    const burst = this.burstOf(notices);
    channel.sending = true;
    let delivered = 0;
    // A slice per turn of the event loop (platform/turns.ts): the first streams' frames are on the
    // wire while the next are written. The walk is live: streams opened meanwhile are offered it too.
    inTurns(channel.subscribers.values(), {
      going: () => this.channels.get(versionId) === channel, // closed meanwhile: nobody left to send to
      visit: (subscriber) => (delivered += this.offer(versionId, subscriber, burst)),
      afterSlice: () => {
        if (delivered > 0) this.metrics?.onDelivered(delivered);
        delivered = 0;
      },
      done: () => this.burstSent(versionId, channel, notices),
    });
  }

  /** What every stream of the version is offered for one burst of changes. */
  private burstOf(notices: ChangeNotice[]): Burst {
    const entries = entriesOf(notices, -Infinity);
    // The common case: one batch, one encoding, for every live subscriber of an audience.
    const all = entries.length > 0 ? new EventBatch(entries) : undefined;
    const shared = { secrets: all?.for('secrets') ?? undefined, public: all?.for('public') ?? undefined };
    return {
      notices,
      first: (notices[0] as ChangeNotice).timestamp,
      newest: (notices.at(-1) as ChangeNotice).timestamp,
      shared,
      // With overrides, streams whose instances resolve alike share a batch, encoded once per group.
      batchOf: anyTargeted(entries) ? targetedBatches(entries, shared) : null,
    };
  }

  /** Offers one stream a burst; returns the entries delivered to it. */
  private offer(versionId: string, subscriber: Subscriber, burst: Burst): number {
    const { notices, first, newest, shared, batchOf } = burst;
    if (subscriber.buffered) {
      subscriber.buffered.push(...notices);
      return 0;
    }
    if (subscriber.lastTimestamp >= first) {
      this.deliverTo(versionId, subscriber, notices); // just caught up: some of these it has
      return 0;
    }
    subscriber.lastTimestamp = newest;
    const batch = batchOf ? batchOf(subscriber) : shared[subscriber.audience];
    if (!batch) {
      // Changes its audience receives, but none it lacks (a rollout's step that leaves its
      // instance out): it has them as much as if they were sent, so it counts up to date.
      if (subscriber.presence && shared[subscriber.audience]) subscriber.presence.lastEvent = newest;
      return 0;
    }
    if (!subscriber.sink.deliver(batch)) {
      this.drop(versionId, subscriber);
      return 0;
    }
    if (subscriber.presence) subscriber.presence.lastEvent = newest;
    return batch.entries.length;
  }

  /** Once every stream was offered the burst: a deleted version ends its streams; the next burst goes. */
  private burstSent(versionId: string, channel: VersionChannel, notices: readonly ChangeNotice[]): void {
    channel.sending = false;
    if (notices.some((n) => n.kind === 'version-deleted')) {
      for (const subscriber of channel.subscribers) {
        if (subscriber.buffered) continue; // still reading its backfill: ends when it goes live
        subscriber.sink.end('NOT_FOUND', `Version ${versionId} was deleted.`);
        this.forget(subscriber);
        channel.subscribers.delete(subscriber);
      }
      if (channel.subscribers.size === 0) this.removeChannel(versionId, channel);
    }
    if (channel.pending.length > 0 && !channel.flushScheduled && this.channels.get(versionId) === channel) {
      channel.flushScheduled = true;
      setImmediate(() => this.flush(versionId, channel));
    }
  }

  /** Sends the changes of `notices` newer than what the subscriber has; ends it when one was a deletion. */
  private deliverTo(versionId: string, subscriber: Subscriber, notices: readonly ChangeNotice[]): void {
    const entries = entriesOf(notices, subscriber.lastTimestamp);
    const newest = notices.at(-1)?.timestamp ?? subscriber.lastTimestamp;
    // Without what it already has (a rollout's step that leaves its instance out): maybe nothing.
    const changes = resolvedChanges(entries, subscriber.target);
    const batch = changes.length > 0 ? new EventBatch(changes).for(subscriber.audience) : null;
    subscriber.lastTimestamp = Math.max(subscriber.lastTimestamp, newest);
    if (batch) {
      if (!this.send(subscriber, batch)) {
        this.drop(versionId, subscriber);
        return;
      }
    } else if (subscriber.presence && entries.some((e) => reaches(e, subscriber.audience))) {
      subscriber.presence.lastEvent = subscriber.lastTimestamp; // as in flush: it lacks none of them
    }
    if (notices.some((n) => n.kind === 'version-deleted')) {
      subscriber.sink.end('NOT_FOUND', `Version ${versionId} was deleted.`);
      this.remove(versionId, subscriber);
    }
  }

  private send(subscriber: Subscriber, batch: EventBatch): boolean {
    const ok = subscriber.sink.deliver(batch);
    if (ok) {
      this.metrics?.onDelivered(batch.entries.length);
      if (subscriber.presence) subscriber.presence.lastEvent = subscriber.lastTimestamp;
    }
    return ok;
  }

  private drop(versionId: string, subscriber: Subscriber): void {
    this.metrics?.onDropped();
    subscriber.sink.end('UNAVAILABLE', 'The subscriber fell too far behind; reconnect with the last timestamp.');
    this.remove(versionId, subscriber);
  }

  private remove(versionId: string, subscriber: Subscriber): void {
    subscriber.unwatch?.();
    const channel = this.channels.get(versionId);
    if (!channel || !channel.subscribers.delete(subscriber)) return;
    this.forget(subscriber);
    if (channel.subscribers.size === 0) this.removeChannel(versionId, channel);
  }

  /** What a subscriber leaving the channel undoes: its recheck, its presence, its place. */
  private forget(subscriber: Subscriber): void {
    subscriber.unwatch?.();
    if (subscriber.presence) this.presence?.close(subscriber.presence);
    subscriber.ticket.release();
  }

  private removeChannel(versionId: string, channel: VersionChannel): void {
    channel.stopListening();
    for (const subscriber of channel.subscribers) this.forget(subscriber);
    channel.subscribers.clear();
    if (this.channels.get(versionId) === channel) this.channels.delete(versionId);
  }
}
