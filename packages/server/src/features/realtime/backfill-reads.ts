import {
  entryChangeOf,
  isTargeted,
  resolutionKey,
  type EntryRecord,
  type TargetedInstance,
  type UnitOfWork,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { EventBatch, resolvedChanges, type Audience } from './event-batch.js';

/** What a new stream is sent before it goes live: its changes after `afterTimestamp`, as one batch. */
export interface BackfillRequest {
  readonly serviceId: string;
  readonly versionId: string;
  readonly afterTimestamp: number;
  readonly audience: Audience;
  /** The instance, for the values resolved for it; none resolves every entry to its value. */
  readonly target?: TargetedInstance;
}

interface Waiter {
  readonly request: BackfillRequest;
  readonly resolve: (batch: EventBatch | null) => void;
  readonly reject: (error: unknown) => void;
}

interface VersionReads {
  /** Waiters for the next read; it starts after every one of them asked. */
  next: Waiter[];
  /** Whether a read of this version is under way. */
  reading: boolean;
}

/**
 * The backfill reads of new streams, shared. After a server restart a whole fleet reconnects within
 * seconds, each stream asking for the same version's changes after about the same timestamp: one
 * read of the version (its existence check and its changes after the oldest timestamp asked for)
 * answers every stream that asked while the previous read was under way or in the same turn of the
 * event loop, and streams that asked for the same timestamp and audience share one encoded batch.
 *
 * A read is never joined once it has started: every stream it answers registered for live changes
 * before the read began (see Subscriptions.open), so a change committed meanwhile is in the read,
 * in the stream's live buffer, or in both (the stream's timestamp drops the second copy).
 */
export class BackfillReads {
  private readonly versions = new Map<string, VersionReads>();

  constructor(private readonly uow: UnitOfWork) {}

  /** The batch to send first (null when nothing changed after the timestamp); NOT_FOUND when the version is gone. */
  read(request: BackfillRequest): Promise<EventBatch | null> {
    const id = `${request.serviceId}\n${request.versionId}`;
    let reads = this.versions.get(id);
    if (!reads) {
      reads = { next: [], reading: false };
      this.versions.set(id, reads);
    }
    const state = reads;
    return new Promise((resolve, reject) => {
      state.next.push({ request, resolve, reject });
      // The first waiter schedules the read; later ones of this turn join it.
      if (state.next.length === 1 && !state.reading) setImmediate(() => void this.run(id, state));
    });
  }

  private async run(id: string, reads: VersionReads): Promise<void> {
    const waiters = reads.next;
    reads.next = [];
    reads.reading = true;
    const [{ serviceId, versionId }] = waiters.map((w) => w.request) as [BackfillRequest];
    try {
      if (!(await this.uow.read.versions.get(serviceId, versionId))) {
        throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      }
      const oldest = waiters.reduce((min, w) => Math.min(min, w.request.afterTimestamp), Infinity);
      const records = await this.uow.read.entries.changedSince(versionId, oldest);
      const batches = new Map<string, EventBatch | null>();
      const targeted = records.filter(isTargeted);
      for (const waiter of waiters) {
        const { afterTimestamp, audience, target } = waiter.request;
        // Instances that resolve the targeted entries alike share a batch too.
        const resolution = target && targeted.length > 0 ? resolutionKey(targeted, target) : null;
        const shared = `${afterTimestamp}\n${audience}\n${resolution ?? ''}`;
        if (!batches.has(shared)) batches.set(shared, batchOf(records, afterTimestamp, audience, target));
        waiter.resolve(batches.get(shared) ?? null);
      }
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
    } finally {
      reads.reading = false;
      if (reads.next.length > 0) void this.run(id, reads);
      else this.versions.delete(id);
    }
  }
}

function batchOf(
  records: readonly EntryRecord[],
  after: number,
  audience: Audience,
  target: TargetedInstance | undefined,
): EventBatch | null {
  const changed = records.filter((r) => r.changedAt > after).map(entryChangeOf);
  const changes = target ? resolvedChanges(changed, target) : changed;
  return changes.length > 0 ? new EventBatch(changes).for(audience) : null;
}
