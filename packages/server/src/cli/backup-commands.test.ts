import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const SECRET = 'sk_live_kept-with-the-key-file';
const KEY_FILE = 'secrets.key';

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

async function serverOn(dataDir: string, umask?: number): Promise<ServerProcess> {
  return startServerProcess({
    args: serverProcessArgs(await findFreePort(), [`--Database:DataDir=${dataDir}`]),
    ...(umask === undefined ? {} : { umask }),
  });
}

/** Tests that run several server processes one after the other: slow on a busy machine. */
const SLOW_MS = 180_000;

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

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
  let secretId: string;

  beforeAll(async () => {
    // Started as `npm start` might be, under a umask that lets everyone read what it creates.
    source = await serverOn(sourceDir, 0o000);
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
    const secret = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Payments:ApiKey',
      valueType: STRING,
      rawValue: SECRET,
      isSecret: true,
    });
    expect(secret.status, secret.text).toBe(201);
    secretId = secret.body.id;
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
    copyFileSync(path.join(sourceDir, KEY_FILE), path.join(restoredDir, KEY_FILE));
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

  // This test and the next only read the source (idle now) and write folders of their own: they run
  // at the same time, as most of their time is child processes loading the server.
  it.concurrent(
    'keeps the data folder 0700 and the database, its -wal and -shm, the key file and backups 0600 under umask 000',
    async () => {
      expect(modeOf(sourceDir)).toBe('700');
      for (const file of ['realtime-config.db', 'realtime-config.db-wal', 'realtime-config.db-shm', KEY_FILE]) {
        expect({ file, mode: modeOf(path.join(sourceDir, file)) }).toEqual({ file, mode: '600' });
      }
      const backupFile = path.join(root, 'umask.db');
      const backup = await runServerCommand(['backup', backupFile, `--Database:DataDir=${sourceDir}`, LOCAL], {
        umask: 0o000,
      });
      expect(backup.code, backup.stderr).toBe(0);
      expect(modeOf(backupFile)).toBe('600');
      const restoredDir = path.join(root, 'restored-umask', 'data');
      const restored = await runServerCommand(['restore', backupFile, `--Database:DataDir=${restoredDir}`, LOCAL], {
        umask: 0o000,
      });
      expect(restored.code, restored.stderr).toBe(0);
      expect(modeOf(restoredDir)).toBe('700');
      expect(modeOf(path.join(restoredDir, 'realtime-config.db'))).toBe('600');
    },
    SLOW_MS,
  );

  /** Where `backup` says the key file is, and where `restore` says it goes. */
  let keyNamedByBackup: string;
  let keyNamedByRestore: string;
  const restoredQuiet = path.join(root, 'restored-quiet');

  it.concurrent(
    'restores without the key file: the server refuses to start (exit 1, naming Secrets:MasterKeyFile) and creates no key',
    async () => {
      const backup = await runServerCommand([
        `--Database:DataDir=${sourceDir}`,
        LOCAL,
        'backup',
        path.join(root, 'quiet.db'),
      ]);
      expect(backup.code).toBe(0);
      mkdirSync(restoredQuiet);
      const restored = await runServerCommand([
        'restore',
        path.join(root, 'quiet.db'),
        `--Database:DataDir=${restoredQuiet}`,
        LOCAL,
      ]);
      expect(restored.code).toBe(0);

      // The server exits on its own; if it served instead, it is killed after the timeout (code null).
      const started = await runServerCommand(
        serverProcessArgs(await findFreePort(), [`--Database:DataDir=${restoredQuiet}`]),
        { timeoutMs: 90_000 },
      );
      expect(started.code, started.stdout + started.stderr).toBe(1);
      expect(started.stdout + started.stderr).toContain('Secrets:MasterKeyFile');
      expect(readdirSync(restoredQuiet)).not.toContain(KEY_FILE);
      // Both commands said where the key file is, and where it goes.
      keyNamedByBackup = /keep a copy of (\S+) for your backups/.exec(backup.stdout)?.[1] ?? '';
      expect(keyNamedByBackup, backup.stdout).toBe(path.join(sourceDir, KEY_FILE));
      keyNamedByRestore = /put the key file kept with it at (\S+) /.exec(restored.stdout)?.[1] ?? '';
      expect(keyNamedByRestore, restored.stdout).toBe(path.join(restoredQuiet, KEY_FILE));
    },
    SLOW_MS,
  );

  it('restores with the key file put where restore says: every secret reads and reveals, the data is the same', async () => {
    copyFileSync(keyNamedByBackup, keyNamedByRestore);
    const copy = await serverOn(restoredQuiet);
    try {
      const client = await new ApiClient(copy.baseUrl).login('admin', ADMIN_PASSWORD);
      const served = await servedData(client, serviceId, versionId);
      expect(served).toEqual(await servedData(admin, serviceId, versionId));
      const secret = served.entries.find((e: { key: string }) => e.key === 'Payments:ApiKey');
      expect(secret).toMatchObject({ redacted: true, rawValue: null });
      expect(secret.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(secret).not.toHaveProperty('unreadable');
      const revealed = await client.post(`/api/configentries/${serviceId}/${versionId}/${secretId}/reveal`);
      expect(revealed.status, revealed.text).toBe(200);
      expect(revealed.body.rawValue).toBe(SECRET);
    } finally {
      await copy.kill();
    }
  });

  it('refuses to restore into a folder that is not empty (exit 1) and changes nothing in it', async () => {
    const before = snapshotOf(sourceDir);
    const other = path.join(root, 'other-files');
    mkdirSync(other);
    writeFileSync(path.join(other, 'notes.txt'), 'keep me');
    // Two independent commands: run together.
    const [result, refused] = await Promise.all([
      runServerCommand(['restore', path.join(root, 'quiet.db'), `--Database:DataDir=${sourceDir}`, LOCAL]),
      runServerCommand(['restore', path.join(root, 'quiet.db'), `--Database:DataDir=${other}`, LOCAL]),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Database:DataDir ${sourceDir} is not empty`);
    expect(snapshotOf(sourceDir)).toEqual(before);

    expect(refused.code).toBe(1);
    expect(snapshotOf(other)).toEqual({ 'notes.txt': createHash('sha256').update('keep me').digest('hex') });
  });

  it('refuses a file that is not a backup and leaves no folder behind', async () => {
    const notABackup = path.join(root, 'not-a-backup.db');
    writeFileSync(notABackup, 'SQLite format 3? no.');
    const target = path.join(root, 'never-created');
    const missingTarget = path.join(root, 'never-created-either');
    // Two independent commands: run together.
    const [result, missing] = await Promise.all([
      runServerCommand(['restore', notABackup, `--Database:DataDir=${target}`, LOCAL]),
      runServerCommand(['restore', path.join(root, 'nothing.db'), `--Database:DataDir=${missingTarget}`, LOCAL]),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not a usable database');
    expect(existsSync(target)).toBe(false);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('The backup file does not exist');
    expect(existsSync(missingTarget)).toBe(false);
  });
});

describe.concurrent('realtime-config-server backup and restore with PostgreSQL', () => {
  // The commands stop before connecting: no database is needed to see them decline.
  const url = '--Database:Url=postgres://config:secret@db.example.com:5432/realtime';

  it('declines backup with exit 2 and points to pg_dump', async ({ onTestFinished }) => {
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
