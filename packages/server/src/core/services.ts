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

export interface MemberRecord {
  readonly serviceId: string;
  readonly userId: string;
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
  removeMember(serviceId: string, userId: string): Promise<boolean>;
  /** True when any of the given user ids (id, e-mail) is a member of the service. */
  hasAnyMember(serviceId: string, userIds: readonly string[]): Promise<boolean>;
}
