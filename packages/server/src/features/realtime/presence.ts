import {
  isUpToDate,
  type Audience,
  type NewestChanges,
  type PresenceRecord,
  type PresenceStore,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import type { StreamClient } from './stream-client.js';

/** One open StartSubscribe stream of this server instance, as the fleet sees it. */
export interface PresentStream {
  readonly no: number;
  readonly serviceId: string;
  readonly versionId: string;
  readonly client: StreamClient;
  readonly connectedAt: number;
  /** The timestamp the client resumed from (0 for a fresh start). */
  readonly resumedFrom: number;
  /** The newest change sent on the stream; null when none was. Kept by Subscriptions. */
  lastEvent: number | null;
  /** Whether it receives secret entries: which changes it must have to be up to date. */
  readonly audience: Audience;
}

/** A stream of any server instance sharing the database. */
export type FleetStream = Omit<PresenceRecord, 'streamNo' | 'serviceId' | 'versionId'>;

/** The streams of a version: the oldest `limit` of them, with how many there are and are up to date. */
export interface FleetSummary {
  /** Oldest first, each with whether it is up to date. */
  readonly streams: ReadonlyArray<FleetStream & { readonly upToDate: boolean }>;
  readonly total: number;
  readonly upToDate: number;
}

export interface PresenceOptions {
  /** This server instance's name in the presence table. */
  readonly serverInstance: string;
  readonly clock: Clock;
  /** The presence table shared by every server instance (PostgreSQL); null with SQLite: one instance. */
  readonly store: PresenceStore | null;
  readonly logger: { warn(obj: object, msg: string): void };
  /**
   * True while this instance is a follower (docs/regions.md): its standby takes no writes, so its
   * streams are written nowhere. They are listed by this instance itself (beside the primary's,
   * which replication brings), not by the primary's instances. Promoted, it writes them all.
   */
  readonly readOnly?: () => boolean;
}

/** A stream that closed: who it was, and when (µs). */
export interface ClosedStream {
  readonly instanceId: string;
  readonly labels: ReadonlyArray<readonly [string, string]>;
  readonly closedAt: number;
}

/** How long closed streams are remembered (closedSince), and how many per version at most. */
const RECENTLY_CLOSED_MS = 120_000;
const MAX_RECENTLY_CLOSED = 10_000;

/** How often a server instance writes its streams' changes and its heartbeat: one batch each time. */
export const PRESENCE_REFRESH_MS = 2000;
/** A server instance whose heartbeat is older than this died: its rows are ignored and then deleted. */
export const PRESENCE_EXPIRY_MS = 15_000;

const byConnectedAt = (a: FleetStream, b: FleetStream): number => a.connectedAt - b.connectedAt;

/**
 * Who is connected: every open stream of this server instance, in memory, and with PostgreSQL the
 * streams of the others through the presence table. Each instance writes its own rows in one batch
 * every PRESENCE_REFRESH_MS (new streams, closed ones, newer last events, the heartbeat), so the
 * table is at most that late; rows of an instance that died expire after PRESENCE_EXPIRY_MS.
 */
export class StreamPresence {
  private readonly versions = new Map<string, Set<PresentStream>>();
  private nextNo = 1;
  /** This instance's streams as the table holds them: the last event written. */
  private readonly written = new Map<PresentStream, number | null>();
  /** Streams closed after they were written: their rows go in the next batch. */
  private closedNos: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private lastPurge = 0;
  /** Per version, the streams with an instance id that closed lately (closedSince). */
  private readonly recentlyClosed = new Map<string, ClosedStream[]>();
  private count = 0;

  constructor(private readonly options: PresenceOptions) {}

  get serverInstance(): string {
    return this.options.serverInstance;
  }

  /** Open streams of this instance. */
  get size(): number {
    return this.count;
  }

  open(
    serviceId: string,
    versionId: string,
    client: StreamClient,
    resumedFrom: number,
    audience: Audience = 'public',
  ): PresentStream {
    const stream: PresentStream = {
      no: this.nextNo++,
      serviceId,
      versionId,
      client,
      connectedAt: this.options.clock.nowMicros(),
      resumedFrom,
      lastEvent: null,
      audience,
    };
    let streams = this.versions.get(versionId);
    if (!streams) {
      streams = new Set();
      this.versions.set(versionId, streams);
    }
    streams.add(stream);
    this.count++;
    return stream;
  }

  close(stream: PresentStream): void {
    const streams = this.versions.get(stream.versionId);
    if (!streams?.delete(stream)) return;
    this.count--;
    this.noteClosed(stream);
    if (streams.size === 0) this.versions.delete(stream.versionId);
    if (this.written.delete(stream)) this.closedNos.push(stream.no);
  }

  /**
   * Streams of this server instance that closed at or after `since` (µs), for a version: a stream
   * that opened and closed between two looks of a watcher (an application that crashed on a value
   * at once) is still seen (docs/rollouts.md, the automatic rollback). Kept for RECENTLY_CLOSED_MS.
   */
  closedSince(versionId: string, since: number): ReadonlyArray<ClosedStream> {
    return (this.recentlyClosed.get(versionId) ?? []).filter((c) => c.closedAt >= since);
  }

  private noteClosed(stream: PresentStream): void {
    if (stream.client.instanceId === null) return;
    const now = this.options.clock.nowMicros();
    const kept = (this.recentlyClosed.get(stream.versionId) ?? []).filter(
      (c) => now - c.closedAt <= RECENTLY_CLOSED_MS * 1000,
    );
    kept.push({ instanceId: stream.client.instanceId, labels: stream.client.labels, closedAt: now });
    // Bounded however many streams a flood opens and closes, and however many versions had one.
    this.recentlyClosed.set(stream.versionId, kept.slice(-MAX_RECENTLY_CLOSED));
    if (this.recentlyClosed.size > MAX_RECENTLY_CLOSED) {
      for (const [versionId, closed] of this.recentlyClosed) {
        if (now - (closed.at(-1)?.closedAt ?? 0) > RECENTLY_CLOSED_MS * 1000) this.recentlyClosed.delete(versionId);
      }
    }
  }

  /** Open streams per version of this instance, for the metrics gauge. */
  *counts(): Generator<{ serviceId: string; versionId: string; count: number }> {
    for (const [versionId, streams] of this.versions) {
      const first = streams.values().next().value;
      if (first) yield { serviceId: first.serviceId, versionId, count: streams.size };
    }
  }

  /**
   * The open streams of the version on every server instance: the oldest `limit` of them, and how
   * many there are and are up to date against `newest` (isUpToDate). However many streams a flood
   * opens, the answer stays bounded; the counts cover every stream.
   */
  async summary(versionId: string, newest: NewestChanges, limit: number): Promise<FleetSummary> {
    const local = this.versions.get(versionId) ?? new Set<PresentStream>();
    let upToDate = 0;
    const oldest: FleetStream[] = [];
    // A version's streams are kept in the order they opened: the first ones are the oldest.
    for (const stream of local) {
      if (isUpToDate(stream, newest)) upToDate++;
      if (oldest.length < limit) oldest.push(this.viewOf(stream));
    }
    let total = local.size;
    const { store, serverInstance } = this.options;
    if (store) {
      const maxAge = PRESENCE_EXPIRY_MS * 1000;
      const remote = await store.fleetOfVersion(versionId, maxAge, serverInstance, limit, newest);
      oldest.push(...remote.records);
      total += remote.total;
      upToDate += remote.upToDate;
    }
    const streams = oldest
      .sort(byConnectedAt)
      .slice(0, limit)
      .map((s) => ({ ...s, upToDate: isUpToDate(s, newest) }));
    return { streams, total, upToDate };
  }

  /**
   * Who is connected to a version, on every server instance: each open stream's instance id and
   * labels, unsorted — lighter than `summary` for a watcher that looks every few seconds.
   */
  async members(versionId: string, limit: number): Promise<Array<Pick<FleetStream, 'instanceId' | 'labels'>>> {
    const members: Array<Pick<FleetStream, 'instanceId' | 'labels'>> = [];
    for (const stream of this.versions.get(versionId) ?? []) {
      if (members.length >= limit) break;
      members.push(stream.client);
    }
    const { store, serverInstance } = this.options;
    if (store && members.length < limit) {
      members.push(
        ...(await store.listVersion(versionId, PRESENCE_EXPIRY_MS * 1000, serverInstance, limit - members.length)),
      );
    }
    return members;
  }

  private viewOf(stream: PresentStream): FleetStream {
    const { client } = stream;
    return {
      serverInstance: this.options.serverInstance,
      instanceId: client.instanceId,
      sdk: client.sdk,
      userAgent: client.userAgent,
      address: client.address,
      labels: client.labels,
      connectedAt: stream.connectedAt,
      resumedFrom: stream.resumedFrom,
      lastEvent: stream.lastEvent,
      audience: stream.audience,
    };
  }

  /** Starts writing to the shared table (nothing to do without one). */
  start(): void {
    if (!this.options.store || this.timer) return;
    this.timer = setInterval(() => {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    }, PRESENCE_REFRESH_MS);
    this.timer.unref();
  }

  /** Stops writing and deletes this instance's rows (best effort: they expire anyway). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing;
    const { store } = this.options;
    if (!store || this.options.readOnly?.()) return;
    await store
      .removeServer(this.options.serverInstance)
      .catch((err: unknown) => this.options.logger.warn({ err }, 'removing the stream presence rows failed'));
  }

  /** One batch: rows of closed streams out, new streams in, newer last events, the heartbeat. */
  async refresh(): Promise<void> {
    const { store, serverInstance: me } = this.options;
    if (!store) return;
    if (this.options.readOnly?.()) {
      // Nothing of this instance is in the table of a standby: all is written once it is promoted.
      this.written.clear();
      this.closedNos = [];
      return;
    }
    const removed = this.closedNos;
    this.closedNos = [];
    const added: Array<{ stream: PresentStream; lastEvent: number | null }> = [];
    const changed = new Map<number, PresentStream[]>();
    try {
      // The heartbeat first: the rows written next are listed as soon as they are in.
      if (!(await store.heartbeat(me))) this.written.clear(); // its rows may be gone: all are written again
      for (const streams of this.versions.values()) {
        for (const stream of streams) {
          const lastEvent = stream.lastEvent;
          if (!this.written.has(stream)) added.push({ stream, lastEvent });
          else if (lastEvent !== null && this.written.get(stream) !== lastEvent) {
            const group = changed.get(lastEvent);
            if (group) group.push(stream);
            else changed.set(lastEvent, [stream]);
          }
        }
      }
      if (removed.length > 0) await store.remove(me, removed);
      const records = added.map(({ stream, lastEvent }) => ({
        ...this.viewOf(stream),
        streamNo: stream.no,
        serviceId: stream.serviceId,
        versionId: stream.versionId,
        lastEvent,
      }));
      if (records.length > 0) await store.add(records);
      for (const [lastEvent, streams] of changed) {
        await store.setLastEvent(
          me,
          streams.map((s) => s.no),
          lastEvent,
        );
      }
    } catch (err) {
      this.closedNos.push(...removed);
      this.options.logger.warn({ err }, 'writing the stream presence failed; retrying');
      return;
    }
    for (const { stream, lastEvent } of added) {
      // Closed while its row was being written: the row goes in the next batch.
      if (this.versions.get(stream.versionId)?.has(stream)) this.written.set(stream, lastEvent);
      else this.closedNos.push(stream.no);
    }
    for (const [lastEvent, streams] of changed) {
      for (const stream of streams) if (this.written.has(stream)) this.written.set(stream, lastEvent);
    }
    const now = this.options.clock.nowMicros();
    if (now - this.lastPurge > PRESENCE_EXPIRY_MS * 1000) {
      this.lastPurge = now;
      await store
        .removeExpired(PRESENCE_EXPIRY_MS * 1000)
        .catch((err: unknown) => this.options.logger.warn({ err }, 'deleting expired stream presence failed'));
    }
  }
}
