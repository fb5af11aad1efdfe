import type { EntryRecord, UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

export class EntryQueries {
  constructor(private readonly uow: UnitOfWork) {}

  async list(serviceId: string, versionId: string): Promise<EntryRecord[]> {
    if (!(await this.uow.read.versions.get(serviceId, versionId))) {
      throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    }
    return this.uow.read.entries.listLive(versionId);
  }
}
