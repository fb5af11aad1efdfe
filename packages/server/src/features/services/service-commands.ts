import {
  auditView,
  UniqueViolation,
  versionDeletionNotice,
  type Actor,
  type MemberRecord,
  type ServiceRole,
  type ServiceFields,
  type ServiceRecord,
  type Stores,
  type UnitOfWork,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';

const nameTaken = (name: string): AppError =>
  AppError.alreadyExists(`A service named "${name}" already exists (names are compared ignoring case).`);

async function requireUniqueName(ctx: Stores, name: string, ownId: string | null): Promise<void> {
  const holder = await ctx.services.findByName(name);
  if (holder && holder.id !== ownId) throw nameTaken(name);
}

/**
 * The unique index decides when two requests take one name at the same moment. Wraps the whole
 * write: the unit of work reports the index's refusal as UniqueViolation once the transaction ends.
 */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueViolation) throw nameTaken(name);
    throw error;
  }
}

export interface ServiceCommandOptions {
  /** With the Local provider a member must be an existing Local user (their username). */
  readonly membersAreLocalUsers: boolean;
}

export class ServiceCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: ServiceCommandOptions = { membersAreLocalUsers: false },
  ) {}

  create(actor: Actor, fields: ServiceFields): Promise<ServiceRecord> {
    return uniqueName(fields.name, () =>
      this.uow.write(async (ctx) => {
        await requireUniqueName(ctx, fields.name, null);
        const now = this.clock.nowMicros();
        const service = await ctx.services.insert({ id: this.ids.newId(), ...fields, createdAt: now, updatedAt: now });
        await ctx.audit.append({
          id: this.ids.newId(),
          serviceId: service.id,
          entityType: 'Service',
          entityId: service.id,
          action: 'Created',
          ...actor,
          timestamp: now,
          changes: { after: auditView(service) },
        });
        return service;
      }),
    );
  }

  update(actor: Actor, id: string, fields: ServiceFields): Promise<ServiceRecord> {
    return uniqueName(fields.name, () =>
      this.uow.write(async (ctx) => {
        const before = await ctx.services.get(id);
        if (!before) throw AppError.notFound(`Service ${id} was not found.`);
        await requireUniqueName(ctx, fields.name, id);
        const now = this.clock.nowMicros();
        const after = await ctx.services.update(id, fields, now);
        if (!after) throw AppError.notFound(`Service ${id} was not found.`);
        await ctx.audit.append({
          id: this.ids.newId(),
          serviceId: id,
          entityType: 'Service',
          entityId: id,
          action: 'Updated',
          ...actor,
          timestamp: now,
          changes: { before: auditView(before), after: auditView(after) },
        });
        return after;
      }),
    );
  }

  /** Deletes the service with its versions and entries; subscribers of each version see every key deleted. */
  delete(actor: Actor, id: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const before = await ctx.services.get(id);
      if (!before) throw AppError.notFound(`Service ${id} was not found.`);
      const now = this.clock.nowMicros();
      for (const version of await ctx.versions.list(id)) {
        ctx.recordChange(await versionDeletionNotice(ctx, id, version.id, now));
      }
      await ctx.services.delete(id);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId: id,
        entityType: 'Service',
        entityId: id,
        action: 'Deleted',
        ...actor,
        timestamp: now,
        changes: { before: auditView(before) },
      });
    });
  }

  addMember(actor: Actor, serviceId: string, input: { userId: string; role: ServiceRole }): Promise<MemberRecord> {
    const { userId, role } = input;
    return this.uow.write(async (ctx) => {
      if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      if (this.options.membersAreLocalUsers && !(await ctx.users.get(userId))) {
        throw AppError.invalid(`There is no user ${userId}; members are Local usernames.`, {
          userId: ['is not a Local user'],
        });
      }
      if (await ctx.services.getMember(serviceId, userId)) {
        throw AppError.alreadyExists(`User ${userId} is already a member of service ${serviceId}.`);
      }
      const now = this.clock.nowMicros();
      const member: MemberRecord = { serviceId, userId, role, addedAt: now, addedBy: actor.userId };
      await ctx.services.addMember(member);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Member',
        entityId: userId,
        action: 'MemberAdded',
        ...actor,
        timestamp: now,
        changes: { after: auditView(member) },
      });
      return member;
    });
  }

  setMemberRole(actor: Actor, serviceId: string, userId: string, role: ServiceRole): Promise<MemberRecord> {
    return this.uow.write(async (ctx) => {
      if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      const before = await ctx.services.getMember(serviceId, userId);
      if (!before) throw AppError.notFound(`User ${userId} is not a member of service ${serviceId}.`);
      const after = (await ctx.services.setMemberRole(serviceId, userId, role)) as MemberRecord;
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Member',
        entityId: userId,
        action: 'Updated',
        ...actor,
        timestamp: this.clock.nowMicros(),
        changes: { before: auditView(before), after: auditView(after) },
      });
      return after;
    });
  }

  removeMember(actor: Actor, serviceId: string, userId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      const before = await ctx.services.getMember(serviceId, userId);
      if (!before) throw AppError.notFound(`User ${userId} is not a member of service ${serviceId}.`);
      await ctx.services.removeMember(serviceId, userId);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Member',
        entityId: userId,
        action: 'MemberRemoved',
        ...actor,
        timestamp: this.clock.nowMicros(),
        changes: { before: auditView(before) },
      });
    });
  }
}
