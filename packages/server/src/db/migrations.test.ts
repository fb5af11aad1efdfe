import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type OpenedTestDatabase } from '@realtime-config/test-support/opened-database';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import type { Database } from './database.js';
import { migrationProvider } from './migrations.js';

const utf8 = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text));

describe.each(databaseKinds)('the version size migration on %s', (kind) => {
  let opened: OpenedTestDatabase;
  let database: Database;

  beforeAll(async () => {
    opened = await openTestDatabase(kind, { migrate: false });
    database = opened.database;
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('counts the live entries and the UTF-8 bytes of their texts of versions that existed before it', async () => {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider(database.dialect) });
    expect((await migrator.migrateTo('0006-audit-entry-columns')).error).toBeUndefined();
    const db = database.db;
    await sql`insert into services (id, name, name_key, created_at, updated_at) values ('s', 'S', 's', 0, 0)`.execute(
      db,
    );
    for (const id of ['v1', 'v2', 'v3']) {
      await sql`insert into versions (id, service_id, version_label, created_at, updated_at)
                values (${id}, 's', ${id}, 0, 0)`.execute(db);
    }
    const rows: Array<[version: string, key: string, value: string | null, deleted: number, extra: string | null]> = [
      ['v1', 'Db:Name', 'Grüße 🚀', 0, 'a description with ü'],
      ['v1', 'Db:Null', null, 0, null],
      ['v1', 'Gone', null, 1, 'tombstones hold nothing'],
      ['v2', 'Only', 'x'.repeat(1000), 0, null],
    ];
    for (const [i, [version, key, value, deleted, extra]] of rows.entries()) {
      await sql`insert into entries (id, version_id, key, name, raw_value, value_type, description, group_name,
                  group_description, enum_definition, generation, created_at, updated_at, changed_at, deleted)
                values (${`e${i}`}, ${version}, ${key}, ${`name ${key}`}, ${value}, 1, ${extra}, ${extra}, ${extra},
                  ${extra}, 1, 0, 0, 0, ${deleted})`.execute(db);
    }
    await database.migrate();

    const expected = (version: string) => {
      const live = rows.filter(([v, , , deleted]) => v === version && deleted === 0);
      const bytes = live.reduce(
        (n, [, key, value, , extra]) => n + utf8(key) + utf8(`name ${key}`) + utf8(value) + 4 * utf8(extra),
        0,
      );
      return { id: version, entry_count: live.length, entry_bytes: bytes };
    };
    const sizes = await db.selectFrom('versions').select(['id', 'entry_count', 'entry_bytes']).orderBy('id').execute();
    expect(
      sizes.map((s) => ({ ...s, entry_count: Number(s.entry_count), entry_bytes: Number(s.entry_bytes) })),
    ).toEqual([expected('v1'), expected('v2'), expected('v3')]);
    expect(expected('v1').entry_bytes).toBeGreaterThan(0);
  });
});
