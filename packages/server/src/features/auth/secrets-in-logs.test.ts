import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { createMasterKeyFile, EnvelopeCipher } from '../../platform/envelope-cipher.js';

describe('logs at the most verbose level', () => {
  let server: TestServer;
  const lines: string[] = [];
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-key-')), 'master.key');
  const masterKey = createMasterKeyFile(keyFile);

  beforeAll(async () => {
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    server = await startTestServer({ deps: { logger }, args: [`--Secrets:MasterKeyFile=${keyFile}`] });
  });
  afterAll(() => server.close());

  it('never contain a password, a session cookie or the cookie secret', async () => {
    const admin = await server.admin();
    const cookie = admin.sessionCookie ?? '';
    expect(cookie).not.toBe('');
    const newPassword = 'a-new-secret-password-1';
    await admin.post('/api/users', { username: 'logged-dev', password: newPassword, role: 'developer' });
    await admin.put('/api/users/logged-dev', { password: `${newPassword}-changed` });
    await server.client().post('/auth/login', { username: 'admin', password: 'wrong-secret-password' });
    await admin.get('/api/auth/me', { headers: { authorization: 'Bearer some-bearer-token-value' } });

    // Stored sealed by the master key: the secret the cookies are signed with is what it opens to.
    const secret = new EnvelopeCipher(masterKey).open(
      (
        await server.internals.database.db
          .selectFrom('settings')
          .select('value')
          .where('key', '=', 'session-secret')
          .executeTakeFirstOrThrow()
      ).value,
    );
    const all = lines.join('\n');
    expect(lines.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(5); // every request was logged
    for (const forbidden of [
      ADMIN_PASSWORD,
      newPassword,
      'wrong-secret-password',
      cookie.split('=')[1] ?? cookie,
      secret,
      'some-bearer-token-value',
    ]) {
      expect(all).not.toContain(forbidden);
    }
    expect(all).toContain('failed sign-in'); // the failure itself is logged, without the password
  });
});
