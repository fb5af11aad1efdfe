import { randomUUID } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createMasterKeyFile } from '../../platform/envelope-cipher.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { alteredSealed } from '@realtime-config/test-support/master-key';

const STRING = 1;

function keyFile(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rc-key-')), 'master.key');
  createMasterKeyFile(file);
  return file;
}

/** A database that outlives one server: SQLite in a folder, or a PostgreSQL database. */
async function lastingDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'postgres') return createTestDatabase('postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-secrets-'));
  return { name: 'sqlite', args: [`--Database:DataDir=${dir}`], drop: () => Promise.resolve() };
}

async function secretVersion(admin: ApiClient, entries: Array<{ key: string; rawValue: string; isSecret: boolean }>) {
  const serviceId = (await admin.post('/api/services', { name: `keys-${randomUUID()}` })).body.id as string;
  const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id as string;
  const base = `/api/configentries/${serviceId}/${versionId}`;
  const ids: string[] = [];
  for (const entry of entries) {
    const res = await admin.post(base, { ...entry, valueType: STRING });
    expect(res.status, res.text).toBe(201);
    ids.push(res.body.id);
  }
  return { base, ids };
}

describe('the embedded database keeps its master key beside it', () => {
  it('creates <DataDir>/secrets.key (0600) at first start, logs it, and reads it again after a restart', async () => {
    const database = await lastingDatabase('sqlite');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    let server = await startTestServer({ database, deps: { logger } });
    const dir = (database.args[0] ?? '').replace('--Database:DataDir=', '');
    const file = path.join(dir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(lines.join('\n')).toContain('created the master key of secret values');
    const admin = await server.admin();
    const { base, ids } = await secretVersion(admin, [{ key: 'A', rawValue: 'kept-across-restarts', isSecret: true }]);
    const fingerprint = (await admin.get(base)).body[0].fingerprint;
    await server.close();

    server = await startTestServer({ database });
    try {
      const again = await server.admin();
      expect((await again.post(`${base}/${ids[0]}/reveal`)).body.rawValue).toBe('kept-across-restarts');
      expect((await again.get(base)).body[0].fingerprint).toBe(fingerprint);
    } finally {
      await server.close();
    }
  });
});

describe.each(databaseKinds)('master keys on %s', (kind) => {
  const servers: TestServer[] = [];
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const database of databases) await database.drop();
  });
  const start = async (database: TestDatabase, args: string[]) => {
    const server = await startTestServer({ database, args });
    servers.push(server);
    return server;
  };

  it.runIf(kind === 'postgres')(
    'refuses secrets with 409 naming Secrets:MasterKeyFile when PostgreSQL has no key',
    async () => {
      const database = await lastingDatabase(kind);
      databases.push(database);
      const server = await start(database, []);
      const admin = await server.admin();
      const { base } = await secretVersion(admin, [{ key: 'Plain', rawValue: 'fine', isSecret: false }]);
      const refused = await admin.post(base, { key: 'Secret', valueType: STRING, rawValue: 'no', isSecret: true });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain('Secrets:MasterKeyFile');
      const metadata = await admin.put(`${base}/${(await admin.get(base)).body[0].id}`, {
        isSecret: true,
        generation: 1,
      });
      expect(metadata.status).toBe(409);
      expect((await admin.get(base)).body).toHaveLength(1);
    },
  );

  it('rotates: a previous key still decrypts, rotate re-wraps everything, then the previous key can go', async () => {
    const database = await lastingDatabase(kind);
    databases.push(database);
    const oldKey = keyFile();
    const newKey = keyFile();
    let server = await start(database, [`--Secrets:MasterKeyFile=${oldKey}`]);
    let admin = await server.admin();
    const { base, ids } = await secretVersion(admin, [
      { key: 'Db:Password', rawValue: 'rotated-value', isSecret: true },
      { key: 'Db:User', rawValue: 'app', isSecret: false },
    ]);
    const secretId = ids[0] as string;
    const before = (await admin.get(base)).body[0];
    await admin.put(`${base}/set`, [{ id: secretId, rawValue: 'rotated-value-2', generation: before.generation }]);
    const fingerprint = (await admin.get(base)).body[0].fingerprint;
    await server.close();

    // Without the old key nothing it sealed can be read: a server with only the new key (or, on
    // PostgreSQL, with none) refuses to start instead of serving every secret as unreadable.
    for (const args of [[`--Secrets:MasterKeyFile=${newKey}`], ...(kind === 'postgres' ? [[]] : [])]) {
      const refused = await startTestServer({ database, args }).then(
        async (started) => {
          await started.close();
          return null;
        },
        (error: unknown) => error as Error,
      );
      expect(refused?.message, `started with ${args.join(' ') || 'no master key'}`).toContain('Secrets:MasterKeyFile');
    }

    server = await start(database, [`--Secrets:MasterKeyFile=${newKey}`, `--Secrets:PreviousKeyFiles:0=${oldKey}`]);
    admin = await server.admin();
    expect((await admin.post(`${base}/${secretId}/reveal`)).body.rawValue).toBe('rotated-value-2');
    const developer = await server.userWithRole('rotating-dev', 'developer');
    expect((await developer.post('/api/admin/secrets/rotate')).status).toBe(403);
    const rotated = await admin.post('/api/admin/secrets/rotate');
    expect(rotated.status, rotated.text).toBe(200);
    // The current value, and the two values in the audit log's records (created, set: before and after).
    expect(rotated.body.rewrapped).toBeGreaterThanOrEqual(4);
    expect((await admin.post('/api/admin/secrets/rotate')).body).toEqual({ rewrapped: 0 });
    await server.close();

    server = await start(database, [`--Secrets:MasterKeyFile=${newKey}`]);
    admin = await server.admin();
    expect((await admin.post(`${base}/${secretId}/reveal`)).body.rawValue).toBe('rotated-value-2');
    expect((await admin.get(base)).body[0].fingerprint).toBe(fingerprint);
    const history = await admin.get(`${base}/${secretId}/history`);
    expect(history.body.entities.every((h: { fingerprint: string | null }) => h.fingerprint !== null)).toBe(true);
  });

  it('fails closed on a tampered value: that entry reads as an error, the rest of the version serves', async () => {
    const database = await lastingDatabase(kind);
    databases.push(database);
    const server = await start(database, [`--Secrets:MasterKeyFile=${keyFile()}`]);
    const admin = await server.admin();
    const { base, ids } = await secretVersion(admin, [
      { key: 'Tampered', rawValue: 'original-secret', isSecret: true },
      { key: 'Intact', rawValue: 'other-secret', isSecret: true },
      { key: 'Plain', rawValue: 'plain', isSecret: false },
    ]);
    const db = server.internals.database.db;
    const row = await db
      .selectFrom('entries')
      .select('raw_value')
      .where('id', '=', ids[0] as string)
      .executeTakeFirst();
    await db
      .updateTable('entries')
      .set({ raw_value: alteredSealed(row?.raw_value ?? '') })
      .where('id', '=', ids[0] as string)
      .execute();

    const list = await admin.get(base);
    expect(list.status, list.text).toBe(200);
    const byKey = new Map(list.body.map((e: { key: string }) => [e.key, e]));
    expect(byKey.get('Tampered')).toMatchObject({ unreadable: true, rawValue: null, fingerprint: null });
    expect(byKey.get('Intact')).toMatchObject({ redacted: true });
    expect((byKey.get('Intact') as { fingerprint: string }).fingerprint).toMatch(/^[0-9a-f]{16,}$/);
    expect(byKey.get('Plain')).toMatchObject({ rawValue: 'plain' });
    const reveal = await admin.post(`${base}/${ids[0]}/reveal`);
    expect(reveal.status).toBe(409);
    expect(reveal.headers.get('content-type')).toContain('application/problem+json');
    expect(reveal.body.detail).toContain('Tampered cannot be decrypted');
    expect(reveal.body.detail).toContain('Secrets:PreviousKeyFiles');
    expect(reveal.text).not.toContain('original-secret');
    const exported = await admin.get(
      `${base.replace('configentries', 'configversions')}/export?format=json&includeSecrets=true`,
    );
    expect(exported.status).toBe(409);
    expect(exported.body.detail).toContain('Tampered cannot be decrypted');
    expect((await admin.post(`${base}/${ids[1]}/reveal`)).body.rawValue).toBe('other-secret');
  });

  it('keeps an override value it cannot decrypt as stored when the entry is written again', async () => {
    const database = await lastingDatabase(kind);
    databases.push(database);
    const server = await start(database, [`--Secrets:MasterKeyFile=${keyFile()}`]);
    const admin = await server.admin();
    const { base, ids } = await secretVersion(admin, [{ key: 'Token', rawValue: 'default-token', isSecret: true }]);
    const id = ids[0] as string;
    const overridden = await admin.put(`${base}/${id}/overrides`, {
      overrides: [
        { labels: { region: 'eu' }, rawValue: 'eu-token' },
        { labels: { region: 'us' }, rawValue: 'us-token' },
      ],
      generation: 1,
    });
    expect(overridden.status, overridden.text).toBe(200);
    const db = server.internals.database.db;
    const stored = await db.selectFrom('entries').select('overrides').where('id', '=', id).executeTakeFirst();
    // The eu override's sealed value altered at rest; the us one intact.
    const [eu, us] = JSON.parse(stored?.overrides ?? '[]') as Array<{ sealedValue: string }>;
    const altered = alteredSealed(eu?.sealedValue ?? '');
    await db
      .updateTable('entries')
      .set({ overrides: JSON.stringify([{ ...eu, sealedValue: altered }, us]) })
      .where('id', '=', id)
      .execute();

    // A value set writes the entry's overrides again: the one it cannot open stays as it was.
    const set = await admin.put(`${base}/set`, [
      { id, rawValue: 'new-default', generation: overridden.body.generation },
    ]);
    expect(set.status, set.text).toBe(200);
    const after = await db.selectFrom('entries').select('overrides').where('id', '=', id).executeTakeFirst();
    const kept = JSON.parse(after?.overrides ?? '[]') as Array<{ labels: object; sealedValue: string }>;
    expect(kept.map((o) => o.labels)).toEqual([{ region: 'eu' }, { region: 'us' }]);
    expect(kept[0]?.sealedValue).toBe(altered);
    const resolved = await admin.get(
      `${base.replace('configentries', 'configversions')}/resolve?labels=${encodeURIComponent('region=us')}`,
    );
    expect(resolved.status, resolved.text).toBe(200);
    expect((await admin.post(`${base}/${id}/reveal`)).body.rawValue).toBe('new-default');
  });
});
