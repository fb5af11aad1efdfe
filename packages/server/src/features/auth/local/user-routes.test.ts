import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

const HASH_FORMAT = /^pbkdf2-sha256\$310000\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;

function expectProblem(res: ApiResponse, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(res.text).not.toMatch(/\n\s+at /);
}

/** No password and no hash ever leaves the server. */
function expectNoSecrets(res: ApiResponse, ...passwords: string[]): void {
  expect(res.text).not.toMatch(/hash|pbkdf2/i);
  for (const password of passwords) expect(res.text).not.toContain(password);
}

/** A user answer does not even have a password field. */
function expectNoPasswordField(res: ApiResponse, ...passwords: string[]): void {
  expectNoSecrets(res, ...passwords);
  expect(res.text).not.toMatch(/password/i);
}

function expectUser(body: unknown, username: string, role: string): void {
  expect(body).toEqual({ username, role, createdAt: expect.any(String), updatedAt: expect.any(String) });
  const user = body as { createdAt: string; updatedAt: string };
  expect(Date.parse(user.createdAt)).not.toBeNaN();
  expect(Date.parse(user.updatedAt)).not.toBeNaN();
}

describe.each(databaseKinds)('users API on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
  });
  afterAll(() => server?.close());

  async function storedUsers() {
    return server.internals.database.db
      .selectFrom('users')
      .select(['username', 'password_hash', 'role', 'updated_at'])
      .orderBy('username')
      .execute();
  }

  async function storedHash(username: string): Promise<string | undefined> {
    return (await storedUsers()).find((u) => u.username === username)?.password_hash;
  }

  async function canSignIn(username: string, password: string): Promise<number> {
    return (await server.client().post('/auth/login', { username, password })).status;
  }

  it('lists users without passwords or hashes', async () => {
    const res = await admin.get('/api/users');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const seeded = (res.body as Array<{ username: string }>).find((u) => u.username === 'admin');
    expectUser(seeded, 'admin', 'admin');
    expectNoPasswordField(res, ADMIN_PASSWORD);
  });

  it('creates a user (201), stores a PBKDF2 hash, and answers it by name', async () => {
    const res = await admin.post('/api/users', {
      username: 'carol',
      password: 'carol-secret-1-for-tests',
      role: 'developer',
    });
    expect(res.status).toBe(201);
    expectUser(res.body, 'carol', 'developer');
    expectNoPasswordField(res, 'carol-secret-1-for-tests');

    const stored = await storedHash('carol');
    expect(stored).toMatch(HASH_FORMAT);
    expect(stored).not.toContain('carol-secret-1-for-tests');

    const got = await admin.get('/api/users/carol');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expectNoPasswordField(got, 'carol-secret-1-for-tests');

    const list = await admin.get('/api/users');
    expect(list.body).toContainEqual(res.body);
    expectNoPasswordField(list, 'carol-secret-1-for-tests');

    expect(await canSignIn('carol', 'carol-secret-1-for-tests')).toBe(200);
  });

  it('answers 409 for a taken username and leaves the existing user as it was', async () => {
    expect(
      (await admin.post('/api/users', { username: 'dave', password: 'dave-secret-1-for-tests', role: 'developer' }))
        .status,
    ).toBe(201);
    const before = await storedUsers();
    const res = await admin.post('/api/users', {
      username: 'dave',
      password: 'another-secret-for-tests',
      role: 'admin',
    });
    expectProblem(res, 409);
    expectNoSecrets(res, 'another-secret-for-tests');
    expect(await storedUsers()).toEqual(before);
    expect((await admin.get('/api/users/dave')).body.role).toBe('developer');
  });

  it.each([
    [{ username: 'eve', password: 'short7!', role: 'developer' }, 'password'],
    [{ username: 'eve', password: '', role: 'developer' }, 'password'],
    [{ username: 'eve', password: 'long-enough-pw-for-tests', role: 'superuser' }, 'role'],
    [{ username: 'eve', password: 'long-enough-pw-for-tests', role: 'Admin' }, 'role'],
    [{ username: 'eve', password: 'long-enough-pw-for-tests' }, 'role'],
    [{ username: 'eve', role: 'developer' }, 'password'],
    [{ password: 'long-enough-pw-for-tests', role: 'developer' }, 'username'],
    [{ username: '', password: 'long-enough-pw-for-tests', role: 'developer' }, 'username'],
    [{ username: 'with space', password: 'long-enough-pw-for-tests', role: 'developer' }, 'username'],
    [{ username: 'with/slash', password: 'long-enough-pw-for-tests', role: 'developer' }, 'username'],
  ])('answers 400 for %j naming %s, and creates nothing', async (body, field) => {
    const before = await storedUsers();
    const res = await admin.post('/api/users', body);
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors ?? {})).toContain(field);
    expectNoSecrets(res, 'long-enough-pw-for-tests', 'short7!');
    expect(await storedUsers()).toEqual(before);
  });

  it('updates the password (200): the new one signs in, the old one no longer does', async () => {
    const created = await admin.post('/api/users', {
      username: 'frank',
      password: 'frank-old-pw-for-tests',
      role: 'developer',
    });
    const oldHash = await storedHash('frank');
    const res = await admin.put('/api/users/frank', { password: 'frank-new-pw-for-tests' });
    expect(res.status).toBe(200);
    expectUser(res.body, 'frank', 'developer');
    expect(res.body.createdAt).toBe(created.body.createdAt);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    expectNoPasswordField(res, 'frank-new-pw-for-tests', 'frank-old-pw-for-tests');

    const newHash = await storedHash('frank');
    expect(newHash).toMatch(HASH_FORMAT);
    expect(newHash).not.toBe(oldHash);
    expect(await canSignIn('frank', 'frank-new-pw-for-tests')).toBe(200);
    expect(await canSignIn('frank', 'frank-old-pw-for-tests')).toBe(401);
  });

  it('updates the role (200) without touching the password, and rejects a too short new password', async () => {
    await admin.post('/api/users', { username: 'grace', password: 'grace-secret-for-tests', role: 'developer' });
    const hash = await storedHash('grace');
    const res = await admin.put('/api/users/grace', { role: 'admin' });
    expect(res.status).toBe(200);
    expectUser(res.body, 'grace', 'admin');
    expect(await storedHash('grace')).toBe(hash);
    expect((await admin.get('/api/users/grace')).body.role).toBe('admin');

    const before = await storedUsers();
    expectProblem(await admin.put('/api/users/grace', { password: 'short' }), 400);
    expectProblem(await admin.put('/api/users/grace', { role: 'root' }), 400);
    expect(await storedUsers()).toEqual(before);

    // Back to developer so that this test leaves the admin count as it found it.
    expect((await admin.put('/api/users/grace', { role: 'developer' })).status).toBe(200);
  });

  it('deletes a user (204): it is gone and can no longer sign in, and its open session ends', async () => {
    await admin.post('/api/users', { username: 'heidi', password: 'heidi-secret-for-tests', role: 'developer' });
    const heidi = await server.client().login('heidi', 'heidi-secret-for-tests');
    expect((await heidi.get('/auth/me')).status).toBe(200);

    const res = await admin.delete('/api/users/heidi');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await admin.get('/api/users/heidi'), 404);
    expect((await storedUsers()).map((u) => u.username)).not.toContain('heidi');
    expect(await canSignIn('heidi', 'heidi-secret-for-tests')).toBe(401);
    expectProblem(await heidi.get('/auth/me'), 401);

    // A new account with the same name is someone else: the old session must not open it.
    expect(
      (await admin.post('/api/users', { username: 'heidi', password: 'new-heidi-pw-for-tests', role: 'admin' })).status,
    ).toBe(201);
    expectProblem(await heidi.get('/auth/me'), 401);
    expectProblem(await heidi.get('/api/users'), 401);
    const newHeidi = await server.client().login('heidi', 'new-heidi-pw-for-tests');
    expect((await newHeidi.get('/auth/me')).body).toMatchObject({ id: 'heidi', roles: ['admin'] });
    expect((await admin.delete('/api/users/heidi')).status).toBe(204);
  });

  it('answers 404 for an unknown user on get, update and delete, and creates nothing', async () => {
    const before = await storedUsers();
    expectProblem(await admin.get('/api/users/nobody'), 404);
    expectProblem(await admin.put('/api/users/nobody', { password: 'new-password-for-tests', role: 'admin' }), 404);
    expectProblem(await admin.delete('/api/users/nobody'), 404);
    expect(await storedUsers()).toEqual(before);
  });

  it('answers 409 when a user deletes its own account', async () => {
    await admin.post('/api/users', { username: 'ivan', password: 'ivan-secret-for-tests', role: 'admin' });
    const ivan = await server.client().login('ivan', 'ivan-secret-for-tests');
    const before = await storedUsers();
    const res = await ivan.delete('/api/users/ivan');
    expectProblem(res, 409);
    expect(await storedUsers()).toEqual(before);
    expect((await ivan.get('/auth/me')).status).toBe(200);
    // Another admin may delete it.
    expect((await admin.delete('/api/users/ivan')).status).toBe(204);
  });

  it('takes canAll away from a demoted user on its next request, in the same session', async () => {
    await admin.post('/api/users', { username: 'judy', password: 'judy-secret-for-tests', role: 'admin' });
    const judy = await server.client().login('judy', 'judy-secret-for-tests');
    expect((await judy.get('/api/users')).status).toBe(200);

    expect((await admin.put('/api/users/judy', { role: 'developer' })).status).toBe(200);
    const me = await judy.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: 'judy',
      roles: ['developer'],
      policies: ['canChange'],
      permissions: ['canChange'],
    });
    const before = await storedUsers();
    expectProblem(await judy.get('/api/users'), 403);
    expectProblem(await judy.put('/api/users/judy', { role: 'admin' }), 403);
    expect(await storedUsers()).toEqual(before);
    expect((await judy.post('/api/services/search', {})).status).toBe(200);

    // Promoted again, the same session has canAll again.
    expect((await admin.put('/api/users/judy', { role: 'admin' })).status).toBe(200);
    expect((await judy.get('/api/users')).status).toBe(200);
    expect((await admin.delete('/api/users/judy')).status).toBe(204);
  });
});

describe.each(databaseKinds)('the last admin on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ kind });
  });
  afterAll(() => server?.close());

  async function roles() {
    const rows = await server.internals.database.db
      .selectFrom('users')
      .select(['username', 'role'])
      .orderBy('username')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.username, r.role]));
  }

  it('answers 409 for demoting or deleting the only admin, and changes nothing', async () => {
    const admin = await server.admin();
    expect(await roles()).toEqual({ admin: 'admin' });

    const demote = await admin.put('/api/users/admin', { role: 'developer' });
    expectProblem(demote, 409);
    expect(demote.body.detail).toMatch(/last admin/i);
    const remove = await admin.delete('/api/users/admin');
    expectProblem(remove, 409);
    expect(await roles()).toEqual({ admin: 'admin' });
    expect((await admin.get('/api/users')).status).toBe(200);
    // A password change of the last admin is fine.
    expect((await admin.put('/api/users/admin', { password: ADMIN_PASSWORD, role: 'admin' })).status).toBe(200);
  });

  it('allows demoting one of two admins, then refuses the other; the demoted seeded admin loses canAll', async () => {
    const admin = await server.admin();
    expect(
      (await admin.post('/api/users', { username: 'boss', password: 'boss-secret-for-tests', role: 'admin' })).status,
    ).toBe(201);
    const boss = await server.client().login('boss', 'boss-secret-for-tests');

    // The seeded admin is called "admin", like the role: demoting it must still take canAll away.
    expect((await boss.put('/api/users/admin', { role: 'developer' })).status).toBe(200);
    const me = await admin.get('/auth/me');
    expect(me.body).toMatchObject({ id: 'admin', roles: ['developer'], policies: ['canChange'] });
    expectProblem(await admin.get('/api/users'), 403);
    expectProblem(await admin.put('/api/users/admin', { role: 'admin' }), 403);
    expectProblem(await admin.delete('/api/users/boss'), 403);
    expect(await roles()).toEqual({ admin: 'developer', boss: 'admin' });

    expectProblem(await boss.put('/api/users/boss', { role: 'developer' }), 409);
    expectProblem(await boss.delete('/api/users/boss'), 409);
    expect(await roles()).toEqual({ admin: 'developer', boss: 'admin' });

    expect((await boss.put('/api/users/admin', { role: 'admin' })).status).toBe(200);
    expect((await admin.get('/api/users')).status).toBe(200);
  });

  it('never leaves zero admins when the two remaining admins are demoted at the same time', async () => {
    const admin = await server.admin();
    expect((await admin.put('/api/users/boss', { role: 'developer' })).status).toBe(200);
    for (let round = 0; round < 5; round++) {
      const racer = `racer-${round}`;
      expect(
        (await admin.post('/api/users', { username: racer, password: 'racer-secret-for-tests', role: 'admin' })).status,
      ).toBe(201);
      expect(
        Object.entries(await roles())
          .filter(([, r]) => r === 'admin')
          .map(([u]) => u),
      ).toEqual(['admin', racer]);

      const results = await Promise.all([
        admin.put('/api/users/admin', { role: 'developer' }),
        admin.put(`/api/users/${racer}`, { role: 'developer' }),
      ]);
      const admins = Object.entries(await roles())
        .filter(([, r]) => r === 'admin')
        .map(([u]) => u);
      expect({ round, admins: admins.length }).toEqual({ round, admins: 1 });
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const res of results.filter((r) => r.status !== 200)) expect([403, 409]).toContain(res.status);

      // Back to one admin called admin before the next round.
      if (admins[0] !== 'admin') {
        const survivor = await server.client().login(racer, 'racer-secret-for-tests');
        expect((await survivor.put('/api/users/admin', { role: 'admin' })).status).toBe(200);
      }
      expect((await admin.delete(`/api/users/${racer}`)).status).toBe(204);
    }
  });
});

describe.each(databaseKinds)('usernames that look like roles on %s', (kind) => {
  it('gives a developer named "admin" only canChange when the seeded admin has another name', async () => {
    const server = await startTestServer({ kind, args: ['--Authentication:Local:DefaultAdminUsername=root'] });
    try {
      const root = await server.admin();
      expect((await root.get('/auth/me')).body).toMatchObject({ id: 'root', roles: ['admin'] });
      const impostor = await server.userWithRole('admin', 'developer');
      const me = await impostor.get('/auth/me');
      expect(me.body).toMatchObject({ id: 'admin', name: 'admin', roles: ['developer'], policies: ['canChange'] });
      expectProblem(await impostor.get('/api/users'), 403);
      expectProblem(await impostor.post('/api/services', { name: 'by-impostor' }), 403);
    } finally {
      await server.close();
    }
  });
});
