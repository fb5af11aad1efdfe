import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Signer } from '@fastify/cookie';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../db/database.js';
import { migrationProvider } from '../../../db/migrations.js';
import { hashOfSecret } from '../../../platform/bearer-secret.js';
import { loadConfig } from '../../../platform/config/load-config.js';
import {
  createMasterKeyFile,
  EnvelopeCipher,
  isSealedText,
  readMasterKeyFile,
} from '../../../platform/envelope-cipher.js';
import { postgresUrl, scannableDatabase, type ScannableDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Setup {
  readonly name: string;
  readonly kind: 'sqlite' | 'postgres';
  /** PostgreSQL with Secrets:MasterKeyFile; SQLite always has one (`<DataDir>/secrets.key`). */
  readonly masterKey: boolean;
}

const setups: Setup[] = [
  { name: 'SQLite', kind: 'sqlite', masterKey: true },
  ...(postgresUrl
    ? [
        { name: 'PostgreSQL with a master key', kind: 'postgres', masterKey: true } as const,
        { name: 'PostgreSQL without a master key', kind: 'postgres', masterKey: false } as const,
      ]
    : []),
];

/** A lasting database, its master key file (null without one) and the arguments that select both. */
async function lastingSetup(setup: Setup) {
  const scannable = await scannableDatabase(setup.kind);
  let keyFile: string | null = null;
  const args: string[] = [];
  if (setup.kind === 'sqlite') {
    keyFile = path.join((scannable.db.args[0] ?? '').replace('--Database:DataDir=', ''), 'secrets.key');
  } else if (setup.masterKey) {
    keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-key-')), 'master.key');
    createMasterKeyFile(keyFile);
    args.push(`--Secrets:MasterKeyFile=${keyFile}`);
  }
  return { scannable, keyFile, args };
}

/** The session id inside a signed `rc_session` cookie (`<id>.<signature>`). */
function sessionIdOf(client: ApiClient): string {
  const value = decodeURIComponent((client.sessionCookie ?? '').replace(/^rc_session=/, ''));
  return value.slice(0, value.lastIndexOf('.'));
}

/** The cookie a forger would send: `id` signed with `secret`, as @fastify/cookie signs it. */
const cookieFor = (secret: string, id: string): string =>
  `rc_session=${encodeURIComponent(new Signer(secret, 'sha256').sign(id))}`;

async function meWith(server: TestServer, cookie: string): Promise<{ status: number; policies?: string[] }> {
  const res = await fetch(`${server.baseUrl}/api/auth/me`, { headers: { cookie } });
  const body = (await res.json()) as { policies?: string[] };
  return { status: res.status, policies: body.policies };
}

/** The session-signing secret as the server uses it: the stored one, opened when it is sealed. */
function signingSecretOf(stored: string, keyFile: string | null): string {
  if (!isSealedText(stored)) return stored;
  return new EnvelopeCipher(readMasterKeyFile(keyFile as string)).open(stored);
}

async function copiedSecret(scannable: ScannableDatabase): Promise<string> {
  const settings = await scannable.copiedRows('settings');
  const row = settings.find((r) => r.key === 'session-secret');
  expect(row, 'the session secret is kept in settings').toBeDefined();
  return String(row?.value);
}

describe.each(setups)('a copy of the database ($name) grants no session', (setup) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('the copied session rows and signing secret make no cookie the server accepts (401)', async () => {
    const { scannable, keyFile, args } = await lastingSetup(setup);
    cleanups.push(() => scannable.db.drop());
    const server = await startTestServer({ database: scannable.db, args });
    cleanups.push(() => server.close());
    const admin = await server.admin();
    const liveId = sessionIdOf(admin);

    const sessions = await scannable.copiedRows('sessions');
    const stored = await copiedSecret(scannable);
    const signingSecret = signingSecretOf(stored, keyFile);
    // The forgery itself is sound: the live id signed with the signing secret is an admin's session.
    const genuine = await meWith(server, cookieFor(signingSecret, liveId));
    expect(genuine.status).toBe(200);
    expect(genuine.policies).toContain('canReveal');

    expect(sessions.length).toBeGreaterThan(0);
    for (const row of sessions) {
      expect((await meWith(server, cookieFor(stored, String(row.sid)))).status).toBe(401);
      // Even with the signing secret (someone who also has the key file, or PostgreSQL without a
      // master key), a stored row names no session: its id is a hash.
      expect((await meWith(server, cookieFor(signingSecret, String(row.sid)))).status).toBe(401);
    }
    // The copy holds the session, but not its id: only the id's SHA-256.
    expect(sessions.map((r) => r.sid)).toContain(hashOfSecret(liveId));
    expect(JSON.stringify(sessions)).not.toContain(liveId);
    // The signing secret is sealed by the master key; without one (PostgreSQL) it stays as it is.
    expect(isSealedText(stored)).toBe(setup.masterKey);
    if (setup.masterKey) expect(stored).not.toContain(signingSecret);
  });

  it.runIf(setup.masterKey)(
    'the upgrade ends the sessions stored in plaintext before it and replaces the plaintext signing secret',
    async () => {
      const { scannable, keyFile, args } = await lastingSetup(setup);
      cleanups.push(() => scannable.db.drop());
      let server = await startTestServer({ database: scannable.db, args });
      const admin = await server.admin();
      const liveId = sessionIdOf(admin);
      const signingSecret = signingSecretOf(await copiedSecret(scannable), keyFile);
      await server.close();

      // What the release before stored: the id and the secret in plaintext, migration 0014 not run.
      const config = loadConfig({
        cwd: tmpdir(),
        env: {},
        argv: ['--Authentication:Provider=Local', ...scannable.db.args],
      });
      const database = openDatabase(config.database);
      try {
        // The schema of the release before: every migration from 0014 on undone (their `down`s).
        const migrated = await new Migrator({
          db: database.db as Kysely<unknown>,
          provider: migrationProvider(database.dialect),
        }).migrateTo('0013-review-authors');
        if (migrated.error) throw migrated.error;
        await database.db
          .updateTable('sessions')
          .set({ sid: liveId })
          .where('sid', '=', hashOfSecret(liveId))
          .execute();
        await database.db
          .updateTable('settings')
          .set({ value: signingSecret })
          .where('key', '=', 'session-secret')
          .execute();
      } finally {
        await database.close();
      }
      // A copy taken then: the live id and the secret, enough to make the admin's cookie.
      const before = await scannable.copiedRows('sessions');
      expect(before.map((r) => r.sid)).toContain(liveId);
      const forged = cookieFor(signingSecret, liveId);

      server = await startTestServer({ database: scannable.db, args });
      cleanups.push(() => server.close());
      // Neither the browser's cookie nor one made from that copy signs in after the upgrade.
      expect((await meWith(server, admin.sessionCookie ?? '')).status).toBe(401);
      expect((await meWith(server, forged)).status).toBe(401);
      expect(JSON.stringify(await scannable.copiedRows('sessions'))).not.toContain(liveId);
      const stored = await copiedSecret(scannable);
      expect(isSealedText(stored)).toBe(true);
      expect(signingSecretOf(stored, keyFile)).not.toBe(signingSecret);
      // Signing in again works, and is stored as a hash.
      const again = await server.admin();
      expect((await again.get('/api/auth/me')).status).toBe(200);
      expect((await scannable.copiedRows('sessions')).map((r) => r.sid)).toContain(hashOfSecret(sessionIdOf(again)));
    },
  );
});
