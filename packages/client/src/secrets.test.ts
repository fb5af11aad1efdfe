import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@realtime-config/test-support/server-process';
import { connect, defineConfig, group, number, string } from './index.js';
import {
  databaseKinds,
  entriesByKey,
  recordingLogger,
  setValues,
  startFixture,
  until,
  type Fixture,
} from './test-support/fixtures.js';

const schema = defineConfig({
  Payments: group({
    Url: string({ default: 'https://pay.example' }),
    ApiKey: string({ default: 'not-set', secret: true }),
    Retries: number({ default: 3, secret: true }),
  }),
});

/** The same keys with no `secret: true`: an application whose schema does not know they are secret. */
const undeclared = defineConfig({
  Payments: group({
    Url: string({ default: 'https://pay.example' }),
    ApiKey: string({ default: 'not-set' }),
    Retries: number({ default: 3 }),
  }),
});

const folders: string[] = [];
function cacheFileIn(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-secret-cache-'));
  folders.push(dir);
  return path.join(dir, 'config-cache.json');
}
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe.each(databaseKinds)('secret settings on %s', (kind) => {
  let fixture: Fixture;
  let serviceId: string;
  let secretsKey: string;
  let readKey: string;
  const SECRET = `sk_live_${randomUUID()}`;

  beforeAll(async () => {
    // The embedded database makes its own master key; PostgreSQL is given one.
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-key-')), 'master.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    folders.push(path.dirname(keyFile));
    fixture = await startFixture(kind, [`--Secrets:MasterKeyFile=${keyFile}`]);
    serviceId = await fixture.service();
    const key = async (scopes: string[]) =>
      (await fixture.admin.post(`/api/services/${serviceId}/apikeys`, { name: scopes.join('+'), scopes })).body
        .key as string;
    secretsKey = await key(['read', 'register', 'secrets']);
    readKey = await key(['read', 'register']);
  });
  afterAll(() => fixture.close());

  it('registers secret: true as a secret and reads it typed only with the secrets scope', async () => {
    const options = { url: fixture.url, serviceId, version: '1.0.0', schema };
    const withSecrets = await connect({ ...options, apiKey: secretsKey });
    const without = await connect({ ...options, apiKey: readKey });
    try {
      const entries = await entriesByKey(fixture.admin, serviceId, withSecrets.versionId);
      expect(entries['Payments:ApiKey']).toMatchObject({ isSecret: true, rawValue: null });
      await setValues(fixture.admin, serviceId, withSecrets.versionId, {
        'Payments:ApiKey': SECRET,
        'Payments:Retries': '7',
        'Payments:Url': 'https://pay2.example',
      });
      await until(() => withSecrets.values.Payments.ApiKey === SECRET, 'the secret');
      expect(withSecrets.values.Payments.Retries).toBe(7);
      await until(() => without.values.Payments.Url === 'https://pay2.example', 'the plain change');
      expect(without.values.Payments.ApiKey).toBe('not-set');
      expect(without.values.Payments.Retries).toBe(3);
    } finally {
      await withSecrets.close();
      await without.close();
    }
  });

  it('leaves secrets out of the cache file without cacheKey (one warning); starting offline they read their defaults', async () => {
    const cacheFile = cacheFileIn();
    const logger = recordingLogger();
    const options = { serviceId, version: '1.0.0', schema, cacheFile };
    const live = await connect({ ...options, url: fixture.url, apiKey: secretsKey, logger });
    await until(() => live.values.Payments.ApiKey === SECRET, 'the secret');
    await live.close();
    const text = readFileSync(cacheFile, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).entries.map((e: { key: string }) => e.key)).toEqual(['Payments:Url']);
    expect(logger.messages.warn.filter((m) => m.includes('secret values are left out'))).toHaveLength(1);

    const offline = await connect({
      ...options,
      url: `http://127.0.0.1:${await findFreePort()}`,
      startupTimeout: 200,
      logger: recordingLogger(),
    });
    try {
      expect(offline.status).toBe('offline');
      expect(offline.values.Payments).toMatchObject({ Url: 'https://pay2.example', ApiKey: 'not-set', Retries: 3 });
    } finally {
      await offline.close();
    }
  });

  it('encrypts secrets in the cache file with cacheKey and reads them back offline, typed', async () => {
    const cacheFile = cacheFileIn();
    const cacheKey = randomBytes(32).toString('base64');
    const options = { serviceId, version: '1.0.0', schema, cacheFile, cacheKey };
    const live = await connect({ ...options, url: fixture.url, apiKey: secretsKey });
    await until(() => live.values.Payments.ApiKey === SECRET, 'the secret');
    await live.close();
    const text = readFileSync(cacheFile, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).toContain('"sealed"');

    const port = await findFreePort();
    const sameKey = await connect({
      ...options,
      url: `http://127.0.0.1:${port}`,
      startupTimeout: 200,
      logger: recordingLogger(),
    });
    try {
      expect(sameKey.values.Payments).toMatchObject({ ApiKey: SECRET, Retries: 7 });
    } finally {
      await sameKey.close();
    }
    const otherKey = await connect({
      ...options,
      cacheKey: randomBytes(32).toString('base64'),
      url: `http://127.0.0.1:${port}`,
      startupTimeout: 200,
      logger: recordingLogger(),
    });
    try {
      expect(otherKey.values.Payments).toMatchObject({ ApiKey: 'not-set', Retries: 3 });
    } finally {
      await otherKey.close();
    }
  });

  it('keeps a key the server marks secret out of the cache file even when the schema does not declare it secret', async () => {
    const cacheFile = cacheFileIn();
    const logger = recordingLogger();
    const options = { serviceId, version: '1.0.0', schema: undeclared, cacheFile };
    const live = await connect({ ...options, url: fixture.url, apiKey: secretsKey, logger });
    const ROTATED = `sk_live_${randomUUID()}`;
    try {
      await until(() => live.values.Payments.ApiKey === SECRET, 'the secret from the snapshot');
      // A change event carries is_secret too.
      await setValues(fixture.admin, serviceId, live.versionId, { 'Payments:ApiKey': ROTATED });
      await until(() => live.values.Payments.ApiKey === ROTATED, 'the secret from the stream');
    } finally {
      await live.close();
    }
    const text = readFileSync(cacheFile, 'utf8');
    for (const value of [SECRET, ROTATED]) expect(text).not.toContain(value);
    expect(JSON.parse(text).entries.map((e: { key: string }) => e.key)).toEqual(['Payments:Url']);
    expect(logger.messages.warn.filter((m) => m.includes('secret values are left out'))).toHaveLength(1);

    const offline = await connect({
      ...options,
      url: `http://127.0.0.1:${await findFreePort()}`,
      startupTimeout: 200,
      logger: recordingLogger(),
    });
    try {
      expect(offline.status).toBe('offline');
      expect(offline.values.Payments).toMatchObject({ Url: 'https://pay2.example', ApiKey: 'not-set', Retries: 3 });
    } finally {
      await offline.close();
    }

    // With cacheKey the server's secrets are kept, encrypted, and read back offline.
    const cacheKey = randomBytes(32).toString('base64');
    const keyed = await connect({ ...options, cacheKey, url: fixture.url, apiKey: secretsKey });
    await until(() => keyed.values.Payments.ApiKey === ROTATED, 'the secret');
    await keyed.close();
    const sealed = readFileSync(cacheFile, 'utf8');
    expect(sealed).not.toContain(ROTATED);
    expect(
      JSON.parse(sealed)
        .entries.filter((e: { sealed?: string }) => e.sealed)
        .map((e: { key: string }) => e.key),
    ).toEqual(['Payments:ApiKey', 'Payments:Retries']);
    const reopened = await connect({
      ...options,
      cacheKey,
      url: `http://127.0.0.1:${await findFreePort()}`,
      startupTimeout: 200,
      logger: recordingLogger(),
    });
    try {
      expect(reopened.values.Payments).toMatchObject({ ApiKey: ROTATED, Retries: 7 });
    } finally {
      await reopened.close();
    }
  });

  it('refuses a cacheKey that is not 32 bytes of base64', async () => {
    await expect(
      connect({ url: fixture.url, serviceId, version: '1.0.0', schema, cacheFile: cacheFileIn(), cacheKey: 'short' }),
    ).rejects.toThrow(/cacheKey must be 32 random bytes/);
  });
});
