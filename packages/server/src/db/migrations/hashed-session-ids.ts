import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Sessions are kept under the SHA-256 of their id from now on (`db/stores/session-store.ts`). The
 * sessions stored before hold their ids in plaintext, and so does every backup or dump taken of
 * them: they end here instead of being hashed, so no copy of the database taken before the upgrade
 * resumes a session after it (everyone signs in again, once). The schema is unchanged (a
 * 64-character hash fits `sid`). A previous release still running on the migrated database (a
 * rolling upgrade) finds no session of this release and its users sign in there again; the rows it
 * writes meanwhile are never matched here and go when they expire (docs/operations.md, "Upgrades").
 */
export function hashedSessionIdsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`delete from sessions`.execute(db);
    },
    async down() {
      // Nothing to undo: the sessions ended.
    },
  };
}
