import {
  resolveEntry,
  type EntryRecord,
  type ResolvedEntry,
  type TargetedInstance,
  type UnitOfWork,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

export class EntryQueries {
  constructor(private readonly uow: UnitOfWork) {}

  async list(serviceId: string, versionId: string): Promise<EntryRecord[]> {
    if (!(await this.uow.read.versions.get(serviceId, versionId))) {
      throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    }
    return this.uow.read.entries.listLive(versionId);
  }

  /** What an instance with these labels and id gets for each live entry (docs/targeting.md). */
  async resolve(
    serviceId: string,
    versionId: string,
    instance: TargetedInstance,
  ): Promise<{ entry: EntryRecord; resolved: ResolvedEntry }[]> {
    const entries = await this.list(serviceId, versionId);
    return entries.map((entry) => ({ entry, resolved: resolveEntry(entry, instance) }));
  }
}
