import { currentPercent, inRollout, type UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import type { FleetStream, StreamPresence } from './presence.js';

/**
 * How many streams the instances list shows at most: the oldest ones. The console reads the list
 * every 2 s; a flood of streams must not make each answer megabytes. `total` and `upToDate` still
 * count every stream.
 */
export const MAX_LISTED_INSTANCES = 500;

export interface VersionInstances {
  /** The oldest MAX_LISTED_INSTANCES streams, oldest first. */
  readonly instances: ReadonlyArray<
    FleetStream & { readonly upToDate: boolean; readonly rollout: { id: string; in: boolean } | null }
  >;
  /** Timestamp of the version's newest entry change; null when it has none. */
  readonly latestTimestamp: number | null;
  /** Every open stream of the version. */
  readonly total: number;
  /** Of them, those up to date. */
  readonly upToDate: number;
}

/** Who is connected to a version, on every server instance sharing the database. */
export class FleetQueries {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly presence: StreamPresence,
  ) {}

  async instances(serviceId: string, versionId: string): Promise<VersionInstances> {
    const id = versionId.toLowerCase();
    if (!(await this.uow.read.versions.get(serviceId.toLowerCase(), id))) {
      throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    }
    // Entry changes only: a version update (its description, protection) is sent to no stream. Each
    // stream is measured against the newest change it may receive (its audience's).
    const newest = await this.uow.read.entries.newestChanges(id);
    const summary = await this.presence.summary(id, newest, MAX_LISTED_INSTANCES);
    // The newest rollout that has started and not ended: whether each instance gets its new values.
    const rollout = (await this.uow.read.rollouts.active(id))
      .filter((r) => r.stepStartedAt !== null)
      .sort((a, b) => b.createdAt - a.createdAt)[0];
    const slot = rollout && { id: rollout.id, percent: currentPercent(rollout), match: rollout.match };
    return {
      instances: summary.streams.map((s) => ({
        ...s,
        rollout: slot
          ? { id: slot.id, in: inRollout(slot, { instanceId: s.instanceId, labels: new Map(s.labels) }) }
          : null,
      })),
      latestTimestamp: newest.secrets > 0 ? newest.secrets : null,
      total: summary.total,
      upToDate: summary.upToDate,
    };
  }
}
