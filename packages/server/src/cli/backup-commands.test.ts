import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  findFreePort,
  killServerProcesses,
  runServerCommand,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { ADMIN_PASSWORD, ApiClient } from '@realtime-config/test-support/test-server';

const STRING = 1;
const LOCAL = '--Authentication:Provider=Local';

/** Every file of a folder with a hash of its contents: what "left untouched" means. */
function snapshotOf(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => [
      name,
      createHash('sha256')
        .update(readFileSync(path.join(dir, name)))
        .digest('hex'),
    ]),
  );
}

async function serverOn(dataDir: string): Promise<ServerProcess> {
  return startServerProcess({ args: serverProcessArgs(await findFreePort(), [`--Database:DataDir=${dataDir}`]) });
}

/** What a server answers about the data: services, one version's entries, and the audit trail. */
async function servedData(admin: ApiClient, serviceId: string, versionId: string) {
  const services = await admin.post('/api/services/search', {});
  const entries = await admin.get(`/api/configentries/${serviceId}/${versionId}`);
  const audit = await admin.post('/api/auditlogs/search', { serviceId, pageSize: 1000 });
  for (const res of [services, entries, audit]) expect(res.status).toBe(200);
  return { services: services.body, entries: entries.body, audit: audit.body };
}

describe('realtime-config-server backup and restore (embedded database)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'rc-backup-'));
  const sourceDir = path.join(root, 'source');
  let source: ServerProcess;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let counter: { id: string; generation: number };

  beforeAll(async () => {
    source = await serverOn(sourceDir);
    admin = await new ApiClient(source.baseUrl).login('admin', ADMIN_PASSWORD);
    serviceId = (await admin.post('/api/services', { name: 'orders' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Counter',
      valueType: STRING,
      rawValue: '0',
    });
    expect(created.status).toBe(201);
    counter = { id: created.body.id, generation: created.body.generation };
  });
  afterAll(async () => {
    await killServerProcesses();
    rmSync(root, { recursive: true, force: true });
  });

  /** Sets Counter to 1, 2, 3 … (each at the generation before it) until told to stop. */
  function startWriting(): { stop(): Promise<number>; written(): number } {
    let stopped = false;
    let value = Number.NaN;
    const loop = (async () => {
      for (let next = counter.generation; !stopped; next++) {
        const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: counter.id, rawValue: String(next), generation: counter.generation },
        ]);
        if (res.status !== 200) throw new Error(`set: ${res.status} ${res.text}`);
        counter.generation = res.body[0].generation;
        value = next;
      }
    })();
    return {
      written: () => value,
      async stop() {
        stopped = true;
        await loop;
        return value;
      },
    };
  }

  it('copies the database while writes go on; the restored copy serves one consistent moment of it', async () => {
    const writer = startWriting();
    await expect.poll(() => writer.written(), { timeout: 30_000 }).toBeGreaterThanOrEqual(20);
    const before = writer.written();
    const backup = await runServerCommand([
      'backup',
      path.join(root, 'during.db'),
      `--Database:DataDir=${sourceDir}`,
      LOCAL,
    ]);
    const after = writer.written();
    const last = await writer.stop();
    expect(backup).toMatchObject({ code: 0, stderr: '' });
    expect(backup.stdout).toContain(`Backed up ${path.join(root, 'during.db')}`);

    const restoredDir = path.join(root, 'restored-during');
    const restored = await runServerCommand([
      LOCAL,
      `--Database:DataDir=${restoredDir}`,
      'restore',
      path.join(root, 'during.db'),
    ]);
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    const copy = await serverOn(restoredDir);
    try {
      const client = await new ApiClient(copy.baseUrl).login('admin', ADMIN_PASSWORD);
      const { entries, audit } = await servedData(client, serviceId, versionId);
      const entry = entries.find((e: { key: string }) => e.key === 'Counter');
      const value = Number(entry.rawValue);
      // A moment while the backup ran: after the writes that finished before it, none after the last.
      expect(value).toBeGreaterThanOrEqual(before);
      expect(value).toBeLessThanOrEqual(Math.max(after, last));
      // …and one moment for every table: the value, its generation and the audit trail agree.
      expect(entry.generation).toBe(value + 1);
      const newest = audit.entities.find((record: { entityId: string }) => record.entityId === counter.id);
      expect(newest.changes.after).toMatchObject({ rawValue: String(value), generation: value + 1 });
    } finally {
      await copy.kill();
    }
  });

  it('restores into an existing empty folder the same data the server serves', async () => {
    const backup = await runServerCommand([
      `--Database:DataDir=${sourceDir}`,
      LOCAL,
      'backup',
      path.join(root, 'quiet.db'),
    ]);
    expect(backup.code).toBe(0);
    const restoredDir = path.join(root, 'restored-quiet');
    mkdirSync(restoredDir);
    expect(
      (await runServerCommand(['restore', path.join(root, 'quiet.db'), `--Database:DataDir=${restoredDir}`, LOCAL]))
        .code,
    ).toBe(0);
    const copy = await serverOn(restoredDir);
    try {
      const client = await new ApiClient(copy.baseUrl).login('admin', ADMIN_PASSWORD);
      expect(await servedData(client, serviceId, versionId)).toEqual(await servedData(admin, serviceId, versionId));
    } finally {
      await copy.kill();
    }
  });

  it('refuses to restore into a folder that is not empty (exit 1) and changes nothing in it', async () => {
    const before = snapshotOf(sourceDir);
    const result = await runServerCommand([
      'restore',
      path.join(root, 'quiet.db'),
      `--Database:DataDir=${sourceDir}`,
      LOCAL,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Database:DataDir ${sourceDir} is not empty`);
    expect(snapshotOf(sourceDir)).toEqual(before);

    const other = path.join(root, 'other-files');
    mkdirSync(other);
    writeFileSync(path.join(other, 'notes.txt'), 'keep me');
    const refused = await runServerCommand([
      'restore',
      path.join(root, 'quiet.db'),
      `--Database:DataDir=${other}`,
      LOCAL,
    ]);
    expect(refused.code).toBe(1);
    expect(snapshotOf(other)).toEqual({ 'notes.txt': createHash('sha256').update('keep me').digest('hex') });
  });

  it('refuses a file that is not a backup and leaves no folder behind', async () => {
    const notABackup = path.join(root, 'not-a-backup.db');
    writeFileSync(notABackup, 'SQLite format 3? no.');
    const target = path.join(root, 'never-created');
    const result = await runServerCommand(['restore', notABackup, `--Database:DataDir=${target}`, LOCAL]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not a usable database');
    expect(existsSync(target)).toBe(false);
    const missing = await runServerCommand([
      'restore',
      path.join(root, 'nothing.db'),
      `--Database:DataDir=${target}`,
      LOCAL,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('The backup file does not exist');
  });
});

describe('realtime-config-server backup and restore with PostgreSQL', () => {
  // The commands stop before connecting: no database is needed to see them decline.
  const url = '--Database:Url=postgres://config:secret@db.example.com:5432/realtime';

  it('declines backup with exit 2 and points to pg_dump', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rc-pg-backup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const result = await runServerCommand(['backup', path.join(dir, 'x.db'), url, LOCAL]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pg_dump');
    expect(result.stderr).not.toContain('secret');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('declines restore with exit 2 and points to pg_restore', async () => {
    const result = await runServerCommand(['restore', 'x.db', url, LOCAL]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pg_restore');
  });
});
