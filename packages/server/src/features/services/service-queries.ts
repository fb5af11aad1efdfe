import type { MemberRecord, Page, ServiceRecord, UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { clampPageSize, decodePageToken, encodePageToken } from '../../platform/page-token.js';

export class ServiceQueries {
  constructor(private readonly uow: UnitOfWork) {}

  async get(id: string): Promise<ServiceRecord> {
    const service = await this.uow.read.services.get(id);
    if (!service) throw AppError.notFound(`Service ${id} was not found.`);
    return service;
  }

  async search(query: {
    name?: string | null;
    pageSize?: number | null;
    pageToken?: string | null;
    /** Only this service (an API key's own): a key finds nothing else. */
    onlyServiceId?: string | null;
  }): Promise<Page<ServiceRecord>> {
    const limit = clampPageSize(query.pageSize);
    const afterNum = decodePageToken(query.pageToken) ?? 0;
    if (query.onlyServiceId) {
      const own = await this.uow.read.services.get(query.onlyServiceId);
      const name = query.name?.toLowerCase() ?? '';
      const found = own && own.num > afterNum && own.name.toLowerCase().includes(name) ? [own] : [];
      return { entities: found, nextPageToken: '' };
    }
    const rows = await this.uow.read.services.search({ nameContains: query.name ?? null, afterNum, limit: limit + 1 });
    const entities = rows.slice(0, limit);
    const last = entities.at(-1);
    return { entities, nextPageToken: rows.length > limit && last ? encodePageToken(last.num) : '' };
  }

  async members(serviceId: string): Promise<MemberRecord[]> {
    await this.get(serviceId);
    return this.uow.read.services.listMembers(serviceId);
  }
}
