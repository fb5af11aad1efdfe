import { sql, type Kysely, type Selectable } from 'kysely';
import {
  SERVICE_ROLES,
  type MemberRecord,
  type ServiceRecord,
  type ServiceRole,
  type ServiceStore,
} from '../../core/index.js';
import type { DatabaseSchema, ServiceMembersTable, ServicesTable } from '../schema.js';
import { serviceNameKey } from '../service-name-key.js';

function toRecord(row: Selectable<ServicesTable>): ServiceRecord {
  return {
    id: row.id,
    num: Number(row.num),
    name: row.name,
    description: row.description,
    repositoryUrl: row.repository_url,
    contactEmail: row.contact_email,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** A stored role; an unknown one (written by a later release) counts as the least. */
const roleOf = (role: string): ServiceRole =>
  SERVICE_ROLES.includes(role as ServiceRole) ? (role as ServiceRole) : 'viewer';

function memberOf(row: Selectable<ServiceMembersTable>): MemberRecord {
  return {
    serviceId: row.service_id,
    userId: row.user_id,
    role: roleOf(row.role),
    addedAt: Number(row.added_at),
    addedBy: row.added_by,
  };
}

/** Escapes LIKE wildcards so a name filter is a plain substring match. */
function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function createServiceStore(db: Kysely<DatabaseSchema>): ServiceStore {
  return {
    async insert(service) {
      const row = await db
        .insertInto('services')
        .values({
          id: service.id,
          name: service.name,
          name_key: serviceNameKey(service.name),
          description: service.description,
          repository_url: service.repositoryUrl,
          contact_email: service.contactEmail,
          created_at: service.createdAt,
          updated_at: service.updatedAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    async update(id, fields, updatedAt) {
      const row = await db
        .updateTable('services')
        .set({
          name: fields.name,
          name_key: serviceNameKey(fields.name),
          description: fields.description,
          repository_url: fields.repositoryUrl,
          contact_email: fields.contactEmail,
          updated_at: updatedAt,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async delete(id) {
      const result = await db.deleteFrom('services').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async get(id) {
      const row = await db.selectFrom('services').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async findByName(name) {
      const row = await db
        .selectFrom('services')
        .selectAll()
        .where('name_key', '=', serviceNameKey(name))
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async search({ nameContains, afterNum, limit }) {
      let query = db.selectFrom('services').selectAll().where('num', '>', afterNum);
      if (nameContains) {
        query = query.where(sql<boolean>`lower(name) like ${likeContains(nameContains)} escape '\\'`);
      }
      const rows = await query.orderBy('num').limit(limit).execute();
      return rows.map(toRecord);
    },
    async listMembers(serviceId) {
      const rows = await db
        .selectFrom('service_members')
        .selectAll()
        .where('service_id', '=', serviceId)
        .orderBy('added_at')
        .orderBy('user_id')
        .execute();
      return rows.map(memberOf);
    },
    async getMember(serviceId, userId) {
      const row = await db
        .selectFrom('service_members')
        .selectAll()
        .where('service_id', '=', serviceId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row && memberOf(row);
    },
    async addMember(member) {
      await db
        .insertInto('service_members')
        .values({
          service_id: member.serviceId,
          user_id: member.userId,
          role: member.role,
          added_at: member.addedAt,
          added_by: member.addedBy,
        })
        .execute();
    },
    async setMemberRole(serviceId, userId, role) {
      const row = await db
        .updateTable('service_members')
        .set({ role })
        .where('service_id', '=', serviceId)
        .where('user_id', '=', userId)
        .returningAll()
        .executeTakeFirst();
      return row && memberOf(row);
    },
    async removeMember(serviceId, userId) {
      const result = await db
        .deleteFrom('service_members')
        .where('service_id', '=', serviceId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async roleOf(serviceId, userIds) {
      if (userIds.length === 0) return undefined;
      const rows = await db
        .selectFrom('service_members')
        .select('role')
        .where('service_id', '=', serviceId)
        .where('user_id', 'in', [...userIds])
        .execute();
      const roles = rows.map((row) => roleOf(row.role));
      return SERVICE_ROLES.findLast((role) => roles.includes(role));
    },
  };
}
