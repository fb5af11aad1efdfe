import type { Kysely, Migration } from 'kysely';

/**
 * The four-eyes rule needs to know, at apply, who wrote a change request (its author and everyone
 * who edited it) and who each approver was, so an approval can be checked again. Only adds: rows
 * from before have no editors and approvals without an approver, which the store reads as such.
 */
export function reviewAuthorsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // JSON array of user ids.
      await db.schema.alterTable('change_requests').addColumn('editors', 'text').execute();
      // JSON: { provider, email, name, roles } of the approver when they approved.
      await db.schema.alterTable('change_request_approvals').addColumn('approver', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('change_request_approvals').dropColumn('approver').execute();
      await db.schema.alterTable('change_requests').dropColumn('editors').execute();
    },
  };
}
