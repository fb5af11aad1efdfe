import type { Kysely, Selectable } from 'kysely';
import type { LocalRole, UserRecord, UserStore } from '../../core/index.js';
import type { DatabaseSchema, UsersTable } from '../schema.js';

function toRecord(row: Selectable<UsersTable>): UserRecord {
  return {
    username: row.username,
    passwordHash: row.password_hash,
    role: row.role as LocalRole,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    passwordChangedAt: Number(row.password_changed_at),
    mustChangePassword: Number(row.must_change_password) === 1,
  };
}

export function createUserStore(db: Kysely<DatabaseSchema>): UserStore {
  return {
    async list() {
      return (await db.selectFrom('users').selectAll().orderBy('username').execute()).map(toRecord);
    },
    async get(username) {
      const row = await db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async insert(user) {
      await db
        .insertInto('users')
        .values({
          username: user.username,
          password_hash: user.passwordHash,
          role: user.role,
          created_at: user.createdAt,
          updated_at: user.updatedAt,
          password_changed_at: user.passwordChangedAt,
          must_change_password: user.mustChangePassword ? 1 : 0,
        })
        .execute();
    },
    async update(username, change) {
      await db
        .updateTable('users')
        .set({
          ...(change.password !== undefined
            ? {
                password_hash: change.password.hash,
                password_changed_at: change.password.changedAt,
                must_change_password: change.password.mustChange ? 1 : 0,
              }
            : {}),
          ...(change.role !== undefined ? { role: change.role } : {}),
          updated_at: change.updatedAt,
        })
        .where('username', '=', username)
        .execute();
    },
    async delete(username) {
      const result = await db.deleteFrom('users').where('username', '=', username).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async countByRole(role) {
      // An UPDATE that changes nothing rather than a SELECT COUNT: it locks the counted rows until the
      // transaction ends, so two transactions demoting or deleting the last two admins at once (READ
      // COMMITTED on PostgreSQL) cannot both count two and leave none.
      const result = await db
        .updateTable('users')
        .set((eb) => ({ role: eb.ref('role') }))
        .where('role', '=', role)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
