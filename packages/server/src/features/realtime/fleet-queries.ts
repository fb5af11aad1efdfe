import type { UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import type { FleetStream, StreamPresence } from './presence.js';

export interface VersionInstances {
  readonly instances: ReadonlyArray<FleetStream & { readonly upToDate: boolean }>;
  /** Timestamp of the version's newest entry change; null when it has none. */
  readonly latestTimestamp: number | null;
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
    // The streams first, then the newest change: a change between the two reads counts against them.
    // Entry changes only: a version update (its description, protection) is sent to no stream.
    const streams = await this.presence.list(id);
    const latest = await this.uow.read.entries.lastChangedAt(id);
    const instances = streams.map((s) => ({
      ...s,
      // It has every change up to what it was sent, or up to where it resumed from.
      upToDate: Math.max(s.resumedFrom, s.lastEvent ?? 0) >= latest,
    }));
    return {
      instances,
      latestTimestamp: latest > 0 ? latest : null,
      upToDate: instances.filter((i) => i.upToDate).length,
    };
  }
}
