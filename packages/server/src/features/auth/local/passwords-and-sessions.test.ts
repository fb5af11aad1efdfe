import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import {
  ADMIN_PASSWORD,
  ApiClient,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

function expectBadField(res: ApiResponse<any>, field: string): void {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(Object.keys(res.body.errors ?? {})).toContain(field);
}

describe.each(databaseKinds)('passwords and sessions on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
  });
  afterAll(() => server?.close());

  const storedHash = async (username: string) =>
    (
      await server.internals.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('username', '=', username)
        .executeTakeFirst()
    )?.password_hash;
  const userCount = async () =>
    (await server.internals.database.db.selectFrom('users').select('username').execute()).length;
  const signIn = async (username: string, password: string) =>
    new ApiClient(server.baseUrl).post('/auth/login', { username, password });

  it.each([
    ['eleven-char', 'is 11 characters long', /at least 12/],
    ['pw-rules-user', 'equals the username', /username/],
    ['PW-RULES-USER', 'equals the username in another case', /username/],
    ['qwerty123456', 'is a common password', /common/],
    ['Q1W2E3R4T5Y6', 'is a common password in another case', /common/],
  ])(
    'refuses %j as a new user password (it %s): 400 naming password, nothing created',
    async (password, _why, message) => {
      const before = await userCount();
      const res = await admin.post('/api/users', { username: 'pw-rules-user', password, role: 'developer' });
      expectBadField(res, 'password');
      expect(res.body.errors.password.join(' ')).toMatch(message);
      expect(res.text).not.toContain(password);
      expect(await userCount()).toBe(before);
    },
  );

  it('refuses a weak password on an admin update and keeps the old one', async () => {
    expect(
      (await admin.post('/api/users', { username: 'weak-update', password: 'weak-update-pw-1', role: 'developer' }))
        .status,
    ).toBe(201);
    const hash = await storedHash('weak-update');
    for (const password of ['short-pw', 'weak-update', '123456789012']) {
      expectBadField(await admin.put('/api/users/weak-update', { password }), 'password');
    }
    expect(await storedHash('weak-update')).toBe(hash);
    expect((await signIn('weak-update', 'weak-update-pw-1')).status).toBe(200);
  });

  it('reserves the username "me"', async () => {
    const before = await userCount();
    expectBadField(
      await admin.post('/api/users', { username: 'me', password: 'a-fine-password-1', role: 'developer' }),
      'username',
    );
    expectBadField(
      await admin.post('/api/users', { username: 'ME', password: 'a-fine-password-1', role: 'developer' }),
      'username',
    );
    expect(await userCount()).toBe(before);
  });

  it('lets a developer change their own password: this session stays, the other one ends, the old password is gone', async () => {
    expect(
      (await admin.post('/api/users', { username: 'self-changer', password: 'self-changer-old-1', role: 'developer' }))
        .status,
    ).toBe(201);
    const here = await new ApiClient(server.baseUrl).login('self-changer', 'self-changer-old-1');
    const elsewhere = await new ApiClient(server.baseUrl).login('self-changer', 'self-changer-old-1');

    const res = await here.put('/api/users/me/password', {
      currentPassword: 'self-changer-old-1',
      newPassword: 'self-changer-new-1',
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await here.get('/auth/me')).body).toMatchObject({ id: 'self-changer', passwordChangeRequired: false });
    expect((await elsewhere.get('/auth/me')).status).toBe(401);
    expect((await signIn('self-changer', 'self-changer-old-1')).status).toBe(401);
    expect((await signIn('self-changer', 'self-changer-new-1')).status).toBe(200);
  });

  it('refuses a wrong current password (400 currentPassword) and a weak new one (400 newPassword), changing nothing', async () => {
    const dev = await server.userWithRole('self-refused', 'developer');
    const hash = await storedHash('self-refused');
    expectBadField(
      await dev.put('/api/users/me/password', {
        currentPassword: 'not-the-password',
        newPassword: 'a-fine-password-2',
      }),
      'currentPassword',
    );
    for (const newPassword of ['too-short', 'self-refused', 'password1234', 'self-refused-password-for-tests']) {
      expectBadField(
        await dev.put('/api/users/me/password', { currentPassword: 'self-refused-password-for-tests', newPassword }),
        'newPassword',
      );
    }
    expectBadField(await dev.put('/api/users/me/password', { currentPassword: 'x' }), 'newPassword');
    expect(await storedHash('self-refused')).toBe(hash);
    expect((await dev.get('/auth/me')).status).toBe(200);
  });

  it('answers 401 to an anonymous own-password change', async () => {
    const res = await server.client().put('/api/users/me/password', { currentPassword: 'a', newPassword: 'b' });
    expect(res.status).toBe(401);
  });

  it("ends every session of a user whose password an admin sets, and keeps the admin's own when it sets its own", async () => {
    const victim = await server.userWithRole('reset-by-admin', 'developer');
    expect((await admin.put('/api/users/reset-by-admin', { password: 'reset-by-admin-new-1' })).status).toBe(200);
    expect((await victim.get('/auth/me')).status).toBe(401);

    const secondAdmin = await server.userWithRole('second-admin', 'admin');
    const otherSessionOfIt = await new ApiClient(server.baseUrl).login(
      'second-admin',
      'second-admin-password-for-tests',
    );
    expect((await secondAdmin.put('/api/users/second-admin', { password: 'second-admin-new-pw-1' })).status).toBe(200);
    expect((await secondAdmin.get('/api/users')).status).toBe(200);
    expect((await otherSessionOfIt.get('/auth/me')).status).toBe(401);
    // A role change alone keeps sessions.
    expect((await admin.put('/api/users/second-admin', { role: 'admin' })).status).toBe(200);
    expect((await secondAdmin.get('/auth/me')).status).toBe(200);
  });

  it('counts wrong current passwords as failed sign-ins (429 after the limit)', async () => {
    const dev = await server.userWithRole('guessing-thief', 'developer');
    for (let i = 0; i < 10; i++) {
      const res = await dev.put('/api/users/me/password', {
        currentPassword: `guess-${i}`,
        newPassword: 'a-fine-password-3',
      });
      expect({ i, status: res.status }).toEqual({ i, status: 400 });
    }
    const limited = await dev.put('/api/users/me/password', {
      currentPassword: 'guessing-thief-password-for-tests',
      newPassword: 'a-fine-password-3',
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn('guessing-thief', 'guessing-thief-password-for-tests')).status).toBe(429);
  });
});

describe.each(databaseKinds)('the seeded default password on %s', (kind) => {
  it('signs in with passwordChangeRequired until the admin changes it, and not after it is changed', async () => {
    const server = await startTestServer({ kind, args: ['--Authentication:Local:DefaultAdminPassword=admin'] });
    try {
      const login = await server.client().post('/auth/login', { username: 'admin', password: 'admin' });
      expect(login.status).toBe(200);
      expect(login.body.passwordChangeRequired).toBe(true);
      const admin = await server.client().login('admin', 'admin');
      expect((await admin.get('/auth/me')).body.passwordChangeRequired).toBe(true);
      expect((await admin.get('/api/auth/me')).body.passwordChangeRequired).toBe(true);
      // The seeded default is itself a weak password: it cannot be chosen again.
      expectBadField(
        await admin.put('/api/users/me/password', { currentPassword: 'admin', newPassword: 'admin' }),
        'newPassword',
      );
      expect(
        (await admin.put('/api/users/me/password', { currentPassword: 'admin', newPassword: 'a-real-admin-pw-1' }))
          .status,
      ).toBe(204);
      expect((await admin.get('/auth/me')).body.passwordChangeRequired).toBe(false);
      const row = await server.internals.database.db
        .selectFrom('users')
        .select('must_change_password')
        .where('username', '=', 'admin')
        .executeTakeFirstOrThrow();
      expect(Number(row.must_change_password)).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('failed sign-in limits across usernames and across addresses', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      args: [
        '--Server:TrustProxy:0=127.0.0.1',
        '--Authentication:Local:SignInLimits:PerUserAndAddress=3',
        '--Authentication:Local:SignInLimits:PerAddress=5',
        '--Authentication:Local:SignInLimits:PerUser=6',
      ],
    });
    const admin = await server.admin();
    for (const username of ['spray-target', 'guess-target']) {
      expect(
        (await admin.post('/api/users', { username, password: `${username}-password-1`, role: 'developer' })).status,
      ).toBe(201);
    }
  });
  afterAll(() => server?.close());

  const from = (address: string, username: string, password: string) =>
    server.client().post('/auth/login', { username, password }, { headers: { 'x-forwarded-for': address } });

  it('limits one address trying many usernames (password spraying), not other addresses', async () => {
    for (let i = 0; i < 5; i++) expect((await from('10.0.0.1', `sprayed-${i}`, 'Winter2026!')).status).toBe(401);
    const limited = await from('10.0.0.1', 'spray-target', 'spray-target-password-1');
    expect(limited.status).toBe(429);
    expect(limited.body.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.getSetCookie()).toEqual([]);
    expect((await from('10.0.0.2', 'spray-target', 'spray-target-password-1')).status).toBe(200);
  });

  it('limits one username guessed from many addresses at the addresses that failed, never locking the user out', async () => {
    for (let i = 0; i < 6; i++) expect((await from(`10.1.0.${i + 1}`, 'guess-target', `guess-${i}`)).status).toBe(401);
    // Every address that took part is refused, even with the right password…
    expect((await from('10.1.0.1', 'guess-target', 'guess-target-password-1')).status).toBe(429);
    expect((await from('10.1.0.6', 'guess-target', 'guess-target-password-1')).status).toBe(429);
    // …while the user, from an address that has not failed, still signs in.
    expect((await from('10.1.0.99', 'guess-target', 'guess-target-password-1')).status).toBe(200);
    // A fresh address gets its attempt; a wrong one makes it a failed address, refused from then on.
    expect((await from('10.1.0.100', 'guess-target', 'guess-7')).status).toBe(401);
    expect((await from('10.1.0.100', 'guess-target', 'guess-target-password-1')).status).toBe(429);
    expect((await from('10.1.0.99', 'spray-target', 'spray-target-password-1')).status).toBe(200);
  });

  it('keeps the admin able to sign in from a clean address after a spray of failures for "admin" from many others', async () => {
    for (let i = 0; i < 10; i++) expect((await from(`10.2.0.${i + 1}`, 'admin', `wrong-${i}`)).status).toBe(401);
    expect((await from('10.2.0.1', 'admin', ADMIN_PASSWORD)).status).toBe(429);
    const signedIn = await from('10.2.9.9', 'admin', ADMIN_PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.getSetCookie().length).toBeGreaterThan(0);
  });
});
