import { CompiledQuery, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type OpenedTestDatabase } from '@realtime-config/test-support/opened-database';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { SecretKeys } from '../../core/index.js';
import { newMasterKey } from '../../platform/envelope-cipher.js';
import type { Database } from '../database.js';
import { PAGE_ROWS } from '../in-pages.js';
import type { DatabaseSchema } from '../schema.js';
import { sealSecrets } from './sealed-json.js';
import { createSecretStore } from './secret-store.js';

/** The statements a store runs, and the most rows any one of them answered. */
function observed(db: Kysely<DatabaseSchema>) {
  const seen = { queries: [] as CompiledQuery[], mostRows: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      seen.queries.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: ({ result }) => {
      seen.mostRows = Math.max(seen.mostRows, result.rows.length);
      return Promise.resolve(result);
    },
  };
  return { db: db.withPlugin(plugin), seen };
}

/** Inserts rows a few hundred per statement (far below either database's limit on bound values). */
async function insertAll<T extends keyof DatabaseSchema & string>(
  db: Kysely<DatabaseSchema>,
  table: T,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 200) as never)
      .execute();
  }
}

const entryRow = (id: string, versionId: string, key: string, rawValue: string, isSecret: 0 | 1) => ({
  id,
  version_id: versionId,
  key,
  name: key,
  raw_value: rawValue,
  value_type: 1,
  enum_definition: null,
  description: null,
  group_name: null,
  group_description: null,
  generation: 1,
  created_at: 1,
  updated_at: 1,
  changed_at: 1,
  deleted: 0,
  is_secret: isSecret,
});

const auditRow = (
  num: number,
  fields: { entityType: string; entityId: string; versionId: string; changes: unknown; key?: string },
) => ({
  id: `audit-${num}`,
  service_id: 's',
  entity_type: fields.entityType,
  entity_id: fields.entityId,
  action: 'Updated',
  user_id: 'admin',
  user_name: 'admin',
  timestamp: num,
  changes: JSON.stringify(fields.changes),
  version_id: fields.versionId,
  entry_key: fields.key ?? null,
});

describe.each(databaseKinds)('the stored copies of secret values on %s', (kind) => {
  let opened: OpenedTestDatabase;
  let database: Database;

  beforeAll(async () => {
    opened = await openTestDatabase(kind);
    database = opened.database;
    const db = database.db;
    await db
      .insertInto('services')
      .values({ id: 's', name: 'S', name_key: 's', created_at: 0, updated_at: 0 })
      .execute();
    for (const id of ['v1', 'v2', 'v3']) {
      await db
        .insertInto('versions')
        .values({
          id,
          service_id: 's',
          version_label: id,
          created_at: 0,
          updated_at: 0,
          last_change_ts: 0,
          entry_count: 0,
          entry_bytes: 0,
          is_protected: 0,
        })
        .execute();
    }
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('re-wraps every sealed value with the new master key, however many, holding a page of rows at a time', async () => {
    const oldKey = newMasterKey();
    const newKey = newMasterKey();
    const before = new SecretKeys(oldKey, []);
    const count = PAGE_ROWS * 2 + 7;
    const ids = Array.from({ length: count }, (_, i) => `rewrap-${String(i).padStart(5, '0')}`);
    const db = database.db;
    await insertAll(
      db,
      'entries',
      ids.map((id, i) => entryRow(id, 'v3', `Key${i}`, before.seal(`value ${i}`), 1)),
    );
    await insertAll(
      db,
      'audit_logs',
      ids.map((id, i) =>
        auditRow(100_000 + i, {
          entityType: 'Entry',
          entityId: id,
          versionId: 'v3',
          changes: sealSecrets({ after: { id, isSecret: true, rawValue: `value ${i}` } }, before),
        }),
      ),
    );
    await insertAll(
      db,
      'change_log',
      ids.map((_, i) => ({
        version_id: 'v3',
        ts: i + 1,
        created_at: i + 1,
        payload: JSON.stringify({
          k: 'entries',
          s: 's',
          v: 'v3',
          t: i + 1,
          e: [[`Key${i}`, before.seal(`value ${i}`), 1, 1, 0, 1]],
        }),
      })),
    );

    const { db: watched, seen } = observed(db);
    const rotated = await createSecretStore(watched, new SecretKeys(newKey, [oldKey])).rewrapAll();

    expect(rotated).toBe(count * 3);
    expect(seen.mostRows).toBeGreaterThan(0);
    expect(seen.mostRows).toBeLessThanOrEqual(PAGE_ROWS);
    // Every copy opens with the new key alone.
    const after = new SecretKeys(newKey, []);
    const entries = await db
      .selectFrom('entries')
      .select(['key', 'raw_value'])
      .where('version_id', '=', 'v3')
      .execute();
    expect(entries.map((e) => after.open(e.raw_value as string)).sort()).toEqual(
      ids.map((_, i) => `value ${i}`).sort(),
    );
    const audits = await db.selectFrom('audit_logs').select('changes').where('version_id', '=', 'v3').execute();
    expect(audits).toHaveLength(count);
    for (const audit of audits) {
      const sealed = (JSON.parse(audit.changes) as { after: { sealedValue: string } }).after.sealedValue;
      expect(after.open(sealed)).toMatch(/^value \d+$/);
    }
    const log = await db.selectFrom('change_log').select('payload').where('version_id', '=', 'v3').execute();
    expect(log).toHaveLength(count);
    for (const row of log) {
      const [[, sealed]] = (JSON.parse(row.payload) as { e: [[string, string]] }).e;
      expect(after.open(sealed)).toMatch(/^value \d+$/);
    }
  });

  it("seals an entry's earlier values where they are kept, reading only the rows of its version and service", async () => {
    const cipher = new SecretKeys(newMasterKey(), []);
    const db = database.db;
    await insertAll(db, 'entries', [entryRow('e1', 'v1', 'Db:Password', 'hunter3', 0)]);
    await insertAll(db, 'audit_logs', [
      auditRow(1, {
        entityType: 'Entry',
        entityId: 'e1',
        versionId: 'v1',
        key: 'Db:Password',
        changes: { before: { rawValue: 'hunter1' }, after: { rawValue: 'hunter2' } },
      }),
      auditRow(2, {
        entityType: 'ChangeRequest',
        entityId: 'cr1',
        versionId: 'v1',
        changes: { after: { items: [{ id: 'e1', rawValue: 'hunter3' }] } },
      }),
      auditRow(3, {
        entityType: 'Entry',
        entityId: 'e2',
        versionId: 'v1',
        key: 'Db:Host',
        changes: { after: { rawValue: 'db.internal' } },
      }),
    ]);
    await insertAll(db, 'webhooks', [
      {
        id: 'w1',
        service_id: 's',
        url: 'https://hooks.example/',
        description: null,
        event_types: null,
        version_ids: null,
        key_prefix: null,
        enabled: 1,
        secret: 'whsec_x',
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: 0,
        updated_at: 0,
      },
    ]);
    await insertAll(db, 'webhook_deliveries', [
      {
        id: 'd1',
        webhook_id: 'w1',
        service_id: 's',
        event_type: 'entry.changed',
        payload: JSON.stringify({ data: { entries: [{ entryId: 'e1', before: { rawValue: 'hunter2' } }] } }),
        created_at: 0,
        status: 'succeeded',
      },
    ]);
    await insertAll(db, 'change_log', [
      {
        version_id: 'v1',
        ts: 5,
        created_at: 5,
        payload: JSON.stringify({ k: 'entries', s: 's', v: 'v1', t: 5, e: [['Db:Password', 'hunter3', 1, 1, 0]] }),
      },
    ]);

    const { db: watched, seen } = observed(db);
    await createSecretStore(watched, cipher).sealHistoryOf({ id: 'e1', versionId: 'v1', key: 'Db:Password' });

    const stored = JSON.stringify([
      await db.selectFrom('audit_logs').select(['entity_id', 'changes']).where('version_id', '=', 'v1').execute(),
      await db.selectFrom('webhook_deliveries').select('payload').execute(),
      await db.selectFrom('change_log').select('payload').where('version_id', '=', 'v1').execute(),
    ]);
    for (const plain of ['hunter1', 'hunter2', 'hunter3']) expect(stored).not.toContain(plain);
    // Another entry's record is left as it was.
    expect(stored).toContain('db.internal');

    if (kind === 'sqlite') {
      // SQLite's planner takes an index wherever one fits (PostgreSQL's weighs the table's size):
      // no statement reads the audit log, the deliveries or the change log from end to end.
      const plans: string[] = [];
      for (const query of seen.queries.filter((q) => /^select/i.test(q.sql))) {
        const plan = await db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
        );
        plans.push(...plan.rows.map((row) => row.detail));
      }
      expect(plans.length).toBeGreaterThan(0);
      expect(plans.filter((detail) => /^SCAN (audit_logs|webhook_deliveries|change_log)\b/.test(detail))).toEqual([]);
    }
  });
});
