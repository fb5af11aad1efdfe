import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * The writing transaction of every change-log row (PostgreSQL), so that a follower on a hot standby
 * can read the log in commit order: rows whose transaction is at or after the xmin of its previous
 * read's snapshot are the only ones that read may not have seen (docs/regions.md). The column is
 * filled by its default in the writing transaction, whatever the release that writes the row, and
 * left null for the rows written before (a follower never needs them). Only adds; nothing on SQLite,
 * which has no followers.
 */
export function changeLogTransactionsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      // Added without a default first, then given one: existing rows are not rewritten.
      await sql`alter table change_log add column tx_id xid8`.execute(db);
      await sql`alter table change_log alter column tx_id set default pg_current_xact_id()`.execute(db);
      await sql`create index change_log_tx_idx on change_log (tx_id)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`drop index change_log_tx_idx`.execute(db);
      await sql`alter table change_log drop column tx_id`.execute(db);
    },
  };
}
