import type { ChangeRequestRecord, ChangeRequestStatus, EntryRecord, UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

/** A change request with the version's live entries its changes name (for their keys and current values). */
export interface ChangeRequestWithEntries {
  readonly request: ChangeRequestRecord;
  readonly entries: ReadonlyMap<string, EntryRecord>;
}

export class ChangeRequestQueries {
  constructor(private readonly uow: UnitOfWork) {}

  /** The version's requests, newest first; only those of `status` when given. */
  list(
    target: { serviceId: string; versionId: string },
    status: ChangeRequestStatus | null,
  ): Promise<{ requests: ChangeRequestRecord[]; entries: ReadonlyMap<string, EntryRecord> }> {
    return this.uow.readConsistent(async (stores) => {
      if (!(await stores.versions.get(target.serviceId, target.versionId))) {
        throw AppError.notFound(`Version ${target.versionId} was not found in service ${target.serviceId}.`);
      }
      const requests = await stores.changeRequests.list(target.versionId, status);
      // Within the same consistent read (another read would wait for this one's connection on SQLite).
      const live = await stores.entries.listLive(target.versionId);
      return { requests, entries: new Map(live.map((e) => [e.id, e])) };
    });
  }

  async get(target: { serviceId: string; versionId: string }, id: string): Promise<ChangeRequestWithEntries> {
    const found =
      (await this.uow.read.versions.get(target.serviceId, target.versionId)) &&
      (await this.uow.read.changeRequests.get(target.versionId, id));
    if (!found) throw AppError.notFound(`Change request ${id} was not found in this version.`);
    return { request: found, entries: await this.entriesOf(target.versionId) };
  }

  /** The version's live entries by id. */
  async entriesOf(versionId: string): Promise<ReadonlyMap<string, EntryRecord>> {
    return new Map((await this.uow.read.entries.listLive(versionId)).map((e) => [e.id, e]));
  }
}
