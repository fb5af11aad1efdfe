import { requireService, type UnitOfWork, type VersionRecord } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

export class VersionQueries {
  constructor(private readonly uow: UnitOfWork) {}

  async list(serviceId: string): Promise<VersionRecord[]> {
    await requireService(this.uow.read, serviceId);
    return this.uow.read.versions.list(serviceId);
  }

  async get(serviceId: string, versionId: string): Promise<VersionRecord> {
    const version = await this.uow.read.versions.get(serviceId, versionId);
    if (!version) throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    return version;
  }
}
