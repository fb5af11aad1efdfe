import { AppError } from '../platform/errors.js';

export interface ServiceRecord {
  readonly id: string;
  readonly num: number;
  readonly name: string;
  readonly description: string | null;
  readonly repositoryUrl: string | null;
  readonly contactEmail: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type ServiceFields = Pick<ServiceRecord, 'name' | 'description' | 'repositoryUrl' | 'contactEmail'>;

/**
 * What a member may do in a service: `viewer` reads, `editor` also changes values (sets, imports,
 * restores, promotions, change requests), `owner` also manages the service (its versions, entries,
 * members, API keys, webhooks and protection).
 */
export type ServiceRole = 'viewer' | 'editor' | 'owner';
export const SERVICE_ROLES: readonly ServiceRole[] = ['viewer', 'editor', 'owner'];

export interface MemberRecord {
  readonly serviceId: string;
  readonly userId: string;
  readonly role: ServiceRole;
  readonly addedAt: number;
  readonly addedBy: string | null;
}

export interface ServiceStore {
  insert(service: Omit<ServiceRecord, 'num'>): Promise<ServiceRecord>;
  update(id: string, fields: ServiceFields, updatedAt: number): Promise<ServiceRecord | undefined>;
  delete(id: string): Promise<boolean>;
  get(id: string): Promise<ServiceRecord | undefined>;
  /** The service whose name equals this one, ignoring case. */
  findByName(name: string): Promise<ServiceRecord | undefined>;
  /** Services ordered by num, after the given num, whose name contains the filter (case-insensitive). */
  search(query: { nameContains: string | null; afterNum: number; limit: number }): Promise<ServiceRecord[]>;
  listMembers(serviceId: string): Promise<MemberRecord[]>;
  getMember(serviceId: string, userId: string): Promise<MemberRecord | undefined>;
  addMember(member: MemberRecord): Promise<void>;
  setMemberRole(serviceId: string, userId: string, role: ServiceRole): Promise<MemberRecord | undefined>;
  removeMember(serviceId: string, userId: string): Promise<boolean>;
  /** The strongest role any of the given user ids (id, e-mail) has in the service; undefined when none is a member. */
  roleOf(serviceId: string, userIds: readonly string[]): Promise<ServiceRole | undefined>;
}

/** Refuses (404) a service id that names no service; the one rule every feature scoped to a service checks first. */
export async function requireService(
  stores: { readonly services: Pick<ServiceStore, 'get'> },
  serviceId: string,
): Promise<void> {
  if (!(await stores.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
}
