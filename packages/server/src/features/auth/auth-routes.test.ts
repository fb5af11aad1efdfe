import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  databaseKinds,
  oneDatabaseKind,
  type TestDatabase,
} from '@realtime-config/test-support/test-databases';
import {
  ADMIN_PASSWORD,
  ApiClient,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

const UNAUTHORIZED_TYPE = 'https://tools.ietf.org/html/rfc9110#section-15.5.2';
const FORBIDDEN_TYPE = 'https://tools.ietf.org/html/rfc9110#section-15.5.4';

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

/** The session id inside a signed `rc_session=<id>.<signature>` cookie pair. */
function sessionIdOf(cookie: string | null): string {
  expect(cookie).toMatch(/^rc_session=/);
  const value = decodeURIComponent((cookie ?? '').slice('rc_session='.length));
  return value.slice(0, value.lastIndexOf('.'));
}

/** A client that sends exactly the given cookie (and never adopts a new one). */
function withCookie(server: TestServer, cookie: string | null) {
  return {
    get: (url: string) => new ApiClient(server.baseUrl).get(url, { headers: cookie ? { cookie } : {} }),
  };
}

/** Signs in with a fresh client, returning the raw response and the client. */
async function signIn(server: TestServer, username: string, password: string) {
  const client = server.client();
  const res = await client.post('/auth/login', { username, password });
  return { client, res };
}

/**
 * A database that outlives one server, for restart tests: a DataDir folder for the embedded
 * database, a fresh PostgreSQL database otherwise.
 */
async function persistentDatabase(kind: 'sqlite' | 'postgres') {
  const database: TestDatabase = await createTestDatabase(kind);
  const dir = kind === 'sqlite' ? mkdtempSync(path.join(tmpdir(), 'rc-data-')) : null;
  return {
    database,
    args: dir ? [`--Database:DataDir=${dir}`] : [],
    async dispose() {
      await database.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A pino logger that keeps every line, parsed, in memory. */
function memoryLogger() {
  const lines: Array<{ level: number; msg?: string; [key: string]: unknown }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe.each(databaseKinds)('sign-in and authorization on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let entryId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    const service = await admin.post('/api/services', { name: 'auth-tests', description: 'original' });
    expect(service.status).toBe(201);
    serviceId = service.body.id;
    const version = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' });
    expect(version.status).toBe(201);
    versionId = version.body.id;
    const entry = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Feature:Enabled',
      valueType: 1,
      rawValue: 'original',
    });
    expect(entry.status).toBe(201);
    entryId = entry.body.id;
  });
  afterAll(() => server?.close());

  /** Everything a rejected request could have touched, as the admin sees it. */
  async function snapshot() {
    const [service, versions, entries, members, users, audit] = await Promise.all([
      admin.get(`/api/services/${serviceId}`),
      admin.get(`/api/configversions/${serviceId}`),
      admin.get(`/api/configentries/${serviceId}/${versionId}`),
      admin.get(`/api/services/${serviceId}/members`),
      admin.get('/api/users'),
      admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 }),
    ]);
    const services = await admin.post('/api/services/search', { pageSize: 500 });
    const hashes = await server.internals.database.db
      .selectFrom('users')
      .select(['username', 'password_hash', 'role'])
      .orderBy('username')
      .execute();
    return {
      service: service.body,
      versions: versions.body,
      entries: entries.body,
      members: members.body,
      users: users.body,
      audit: audit.body,
      services: services.body,
      hashes,
    };
  }

  describe('POST /auth/login', () => {
    it('answers 200 with the /auth/me body and sets an HttpOnly, SameSite=Lax, non-Secure cookie', async () => {
      const { client, res } = await signIn(server, 'admin', ADMIN_PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: 'admin',
        email: null,
        name: 'admin',
        provider: 'local',
        roles: ['admin'],
        policies: ['canAll', 'canChange', 'canReveal'],
        permissions: ['canAll', 'canChange', 'canReveal'],
        passwordChangeRequired: false,
      });
      const cookies = res.headers.getSetCookie();
      expect(cookies).toHaveLength(1);
      const cookie = cookies[0] ?? '';
      expect(cookie).toMatch(/^rc_session=[^;]+/);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Lax/i);
      expect(cookie).not.toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*Path=\//i);

      const me = await client.get('/auth/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual(res.body);
      const apiMe = await client.get('/api/auth/me');
      expect(apiMe.status).toBe(200);
      expect(apiMe.body).toEqual(res.body);
    });

    it('answers a developer with canChange only, and exactly its one role', async () => {
      const dev = await server.userWithRole('login-dev', 'developer');
      const me = await dev.get('/auth/me');
      expect(me.body).toEqual({
        id: 'login-dev',
        email: null,
        name: 'login-dev',
        provider: 'local',
        roles: ['developer'],
        policies: ['canChange'],
        permissions: ['canChange'],
        passwordChangeRequired: false,
      });
    });

    it('answers a wrong password and an unknown user alike: 401 with the same detail and no cookie', async () => {
      const wrong = await signIn(server, 'admin', 'not-the-password');
      const unknown = await signIn(server, 'nobody-here', 'not-the-password');
      for (const { res } of [wrong, unknown]) {
        expectProblem(res, 401);
        expect(res.body.type).toBe(UNAUTHORIZED_TYPE);
        expect(res.headers.getSetCookie()).toEqual([]);
      }
      expect(wrong.res.body).toEqual(unknown.res.body);
      expect((await wrong.client.get('/auth/me')).status).toBe(401);
    });

    it.each([
      ['text/plain', 'username=admin'],
      ['application/x-www-form-urlencoded', `username=admin&password=${ADMIN_PASSWORD}`],
    ])('answers 415 for a %s body and signs nobody in', async (contentType, body) => {
      const client = server.client();
      const res = await client.post('/auth/login', body, { contentType });
      expectProblem(res, 415);
      expect(res.headers.getSetCookie()).toEqual([]);
    });

    it.each([
      [{}],
      [{ username: 'admin' }],
      [{ password: ADMIN_PASSWORD }],
      [{ username: '', password: 'x' }],
      [{ username: 'admin', password: 5 }],
    ])('answers 400 for the incomplete body %j', async (body) => {
      const res = await server.client().post('/auth/login', body);
      expectProblem(res, 400);
      expect(res.headers.getSetCookie()).toEqual([]);
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await server
        .client()
        .post('/auth/login', '{"username": "admin",', { contentType: 'application/json' });
      expectProblem(res, 400);
    });
  });

  describe('sessions', () => {
    it('issues a fresh session id at every sign-in and ends the previous session', async () => {
      const client = server.client();
      expect((await client.get('/auth/config')).headers.getSetCookie()).toEqual([]);
      await client.login('admin', ADMIN_PASSWORD);
      const first = client.sessionCookie;
      await client.login('admin', ADMIN_PASSWORD);
      const second = client.sessionCookie;
      expect(sessionIdOf(second)).not.toBe(sessionIdOf(first));
      expect((await withCookie(server, second).get('/auth/me')).status).toBe(200);
      expectProblem(await withCookie(server, first).get('/auth/me'), 401);
    });

    it('does not let a planted session id become the victim’s session (no session fixation)', async () => {
      const attacker = await server.userWithRole('fixation-dev', 'developer');
      const planted = attacker.sessionCookie;
      // The victim's browser carries the attacker's cookie when it signs in.
      const res = await fetch(`${server.baseUrl}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: planted ?? '' },
        body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
      });
      expect(res.status).toBe(200);
      const issued = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      expect(sessionIdOf(issued)).not.toBe(sessionIdOf(planted));
      expect((await withCookie(server, issued).get('/auth/me')).body.id).toBe('admin');
      const withPlanted = await withCookie(server, planted).get('/auth/me');
      expect(withPlanted.status).toBe(401);
    });

    it('POST /auth/logout answers 204 and the same cookie no longer authenticates', async () => {
      const client = await server.admin();
      const cookie = client.sessionCookie;
      expect((await withCookie(server, cookie).get('/auth/me')).status).toBe(200);
      const out = await client.post('/auth/logout');
      expect(out.status).toBe(204);
      expect(out.text).toBe('');
      expectProblem(await withCookie(server, cookie).get('/auth/me'), 401);
      expectProblem(await withCookie(server, cookie).get('/api/auth/me'), 401);
      expectProblem(await client.get('/auth/me'), 401);
      // Signing out twice, or without a session, is harmless.
      expect((await client.post('/auth/logout')).status).toBe(204);
      expect((await server.client().post('/auth/logout')).status).toBe(204);
    });

    it('answers 401 for a forged or tampered cookie', async () => {
      const client = await server.admin();
      const cookie = client.sessionCookie ?? '';
      expect((await withCookie(server, cookie).get('/auth/me')).status).toBe(200);
      // One character of the signature changed.
      const at = cookie.lastIndexOf('.') + 3;
      const tampered = `${cookie.slice(0, at)}${cookie[at] === 'A' ? 'B' : 'A'}${cookie.slice(at + 1)}`;
      expect(tampered).not.toBe(cookie);
      expectProblem(await withCookie(server, tampered).get('/auth/me'), 401);
      // The session id of someone else's cookie with this cookie's signature.
      const other = (await server.admin()).sessionCookie ?? '';
      const spliced = `${other.slice(0, other.lastIndexOf('.'))}${cookie.slice(cookie.lastIndexOf('.'))}`;
      expectProblem(await withCookie(server, spliced).get('/auth/me'), 401);
      expectProblem(await withCookie(server, 'rc_session=made-up.signature').get('/auth/me'), 401);
    });

    it('GET /auth/config needs no session and names the Local provider', async () => {
      const res = await server.client().get('/auth/config');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ provider: 'local' });
    });
  });

  describe('401 without a session', () => {
    const routes = (): Array<[string, string, unknown]> => {
      const s = serviceId;
      const v = versionId;
      const e = entryId;
      return [
        ['POST', '/api/services/search', { pageSize: 5 }],
        ['GET', `/api/services/${s}`, undefined],
        ['POST', '/api/services', { name: 'anonymous' }],
        ['PUT', `/api/services/${s}`, { name: 'anonymous' }],
        ['DELETE', `/api/services/${s}`, undefined],
        ['GET', `/api/services/${s}/members`, undefined],
        ['POST', `/api/services/${s}/members`, { userId: 'anonymous' }],
        ['DELETE', `/api/services/${s}/members/anonymous`, undefined],
        ['GET', `/api/configversions/${s}`, undefined],
        ['GET', `/api/configversions/${s}/${v}`, undefined],
        ['POST', `/api/configversions/${s}`, { versionLabel: 'anonymous' }],
        ['PUT', `/api/configversions/${s}/${v}`, { versionLabel: 'anonymous' }],
        ['DELETE', `/api/configversions/${s}/${v}`, undefined],
        ['GET', `/api/configentries/${s}/${v}`, undefined],
        ['POST', `/api/configentries/${s}/${v}`, { key: 'Anonymous', valueType: 1 }],
        ['PUT', `/api/configentries/${s}/${v}/set`, [{ id: e, rawValue: 'anonymous', generation: 1 }]],
        ['PUT', `/api/configentries/${s}/${v}/${e}`, { rawValue: 'anonymous', generation: 1 }],
        ['DELETE', `/api/configentries/${s}/${v}/${e}`, undefined],
        ['POST', '/api/auditlogs/search', { serviceId: s }],
        ['GET', '/api/auth/me', undefined],
        ['GET', '/auth/me', undefined],
        ['GET', '/api/users', undefined],
        ['GET', '/api/users/admin', undefined],
        ['POST', '/api/users', { username: 'anonymous', password: 'anonymous-pw-for-tests', role: 'admin' }],
        ['PUT', '/api/users/admin', { password: 'anonymous-pw-for-tests', role: 'developer' }],
        ['DELETE', '/api/users/admin', undefined],
      ];
    };

    it('answers every /api route and /auth/me with 401 problem details, never a redirect, and changes nothing', async () => {
      const before = await snapshot();
      const anonymous = server.client();
      for (const [method, url, body] of routes()) {
        const variants: Array<{ body?: unknown; contentType?: string }> =
          body === undefined
            ? [{}]
            : [
                { body },
                { body: '{"broken": ', contentType: 'application/json' },
                { body: 'plain', contentType: 'text/plain' },
                { body: {} },
              ];
        for (const variant of variants) {
          const res = await anonymous.request(method, url, variant);
          expect({ method, url, variant, status: res.status }).toEqual({ method, url, variant, status: 401 });
          expectProblem(res, 401);
          expect(res.body.type).toBe(UNAUTHORIZED_TYPE);
          expect(res.headers.get('location')).toBeNull();
        }
      }
      expect(anonymous.sessionCookie).toBeNull();
      expect(await snapshot()).toEqual(before);
    });

    it('answers 401 before checking path ids', async () => {
      expectProblem(await server.client().get('/api/services/not-a-uuid'), 401);
      expectProblem(await server.client().delete('/api/configentries/x/y/z'), 401);
    });
  });

  describe('403 for a developer on canAll routes', () => {
    let dev: ApiClient;

    beforeAll(async () => {
      dev = await server.userWithRole('policy-dev', 'developer');
    });

    it('answers 403 problem details on every canAll route and changes nothing', async () => {
      const s = serviceId;
      const v = versionId;
      const e = entryId;
      const canAllRoutes: Array<[string, string, unknown]> = [
        ['POST', '/api/services', { name: 'by-developer' }],
        ['PUT', `/api/services/${s}`, { name: 'by-developer' }],
        ['DELETE', `/api/services/${s}`, undefined],
        ['POST', `/api/services/${s}/members`, { userId: 'policy-dev' }],
        ['DELETE', `/api/services/${s}/members/policy-dev`, undefined],
        ['POST', `/api/configversions/${s}`, { versionLabel: 'by-developer' }],
        ['PUT', `/api/configversions/${s}/${v}`, { versionLabel: 'by-developer' }],
        ['DELETE', `/api/configversions/${s}/${v}`, undefined],
        ['POST', `/api/configentries/${s}/${v}`, { key: 'ByDeveloper', valueType: 1 }],
        ['PUT', `/api/configentries/${s}/${v}/${e}`, { rawValue: 'by-developer', generation: 1 }],
        ['DELETE', `/api/configentries/${s}/${v}/${e}`, undefined],
        ['GET', '/api/users', undefined],
        ['GET', '/api/users/admin', undefined],
        ['POST', '/api/users', { username: 'dev-made', password: 'dev-made-pw-for-tests', role: 'admin' }],
        ['PUT', '/api/users/admin', { password: 'taken-over-pw-for-tests' }],
        ['PUT', '/api/users/policy-dev', { role: 'admin' }],
        ['DELETE', '/api/users/admin', undefined],
      ];
      const before = await snapshot();
      for (const [method, url, body] of canAllRoutes) {
        const res = await dev.request(method, url, body === undefined ? {} : { body });
        expect({ method, url, status: res.status }).toEqual({ method, url, status: 403 });
        expectProblem(res, 403);
        expect(res.body.type).toBe(FORBIDDEN_TYPE);
      }
      expect(await snapshot()).toEqual(before);
      expect((await dev.get('/auth/me')).body.policies).toEqual(['canChange']);
    });

    it('answers 200 on the canChange routes', async () => {
      const s = serviceId;
      const v = versionId;
      const search = await dev.post('/api/services/search', { name: 'auth-tests' });
      expect(search.status).toBe(200);
      expect(search.body.entities.map((x: { id: string }) => x.id)).toContain(s);

      const service = await dev.get(`/api/services/${s}`);
      expect(service.status).toBe(200);
      expect(service.body.id).toBe(s);

      const versions = await dev.get(`/api/configversions/${s}`);
      expect(versions.status).toBe(200);
      expect(versions.body.map((x: { id: string }) => x.id)).toContain(v);
      expect((await dev.get(`/api/configversions/${s}/${v}`)).status).toBe(200);

      const entries = await dev.get(`/api/configentries/${s}/${v}`);
      expect(entries.status).toBe(200);
      expect(entries.body.map((x: { id: string }) => x.id)).toContain(entryId);

      expect((await dev.get(`/api/services/${s}/members`)).status).toBe(200);
      expect((await dev.post('/api/auditlogs/search', { serviceId: s })).status).toBe(200);
      expect((await dev.get('/api/auth/me')).status).toBe(200);
    });
  });

  describe('service membership for setting values', () => {
    async function entryValue(id: string) {
      const entries = await admin.get(`/api/configentries/${serviceId}/${versionId}`);
      return (entries.body as Array<{ id: string; rawValue: string | null; generation: number }>).find(
        (x) => x.id === id,
      );
    }

    it('lets a developer set values only after it is added as a member; an admin needs no membership', async () => {
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Members:Only',
        valueType: 1,
        rawValue: 'v0',
      });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      const dev = await server.userWithRole('member-dev', 'developer');
      const setUrl = `/api/configentries/${serviceId}/${versionId}/set`;

      const auditBefore = await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 });
      const denied = await dev.put(setUrl, [{ id, rawValue: 'by-outsider', generation: 1 }]);
      expectProblem(denied, 403);
      expect(await entryValue(id)).toMatchObject({ rawValue: 'v0', generation: 1 });
      expect((await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).body).toEqual(auditBefore.body);

      // A member of another service is still an outsider here.
      const other = await admin.post('/api/services', { name: 'other-service' });
      expect((await admin.post(`/api/services/${other.body.id}/members`, { userId: 'member-dev' })).status).toBe(201);
      expectProblem(await dev.put(setUrl, [{ id, rawValue: 'by-outsider', generation: 1 }]), 403);
      expect(await entryValue(id)).toMatchObject({ rawValue: 'v0', generation: 1 });

      const added = await admin.post(`/api/services/${serviceId}/members`, { userId: 'member-dev' });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ userId: 'member-dev', addedBy: 'admin' });

      const allowed = await dev.put(setUrl, [{ id, rawValue: 'by-member', generation: 1 }]);
      expect(allowed.status).toBe(200);
      expect(allowed.body).toMatchObject([{ id, rawValue: 'by-member', generation: 2 }]);
      expect(await entryValue(id)).toMatchObject({ rawValue: 'by-member', generation: 2 });

      // Removing the membership takes the right away again.
      expect((await admin.delete(`/api/services/${serviceId}/members/member-dev`)).status).toBe(204);
      expectProblem(await dev.put(setUrl, [{ id, rawValue: 'after-removal', generation: 2 }]), 403);
      expect(await entryValue(id)).toMatchObject({ rawValue: 'by-member', generation: 2 });

      // An admin (canAll) is not a member and still may set.
      const members = await admin.get(`/api/services/${serviceId}/members`);
      expect(members.body.map((m: { userId: string }) => m.userId)).not.toContain('admin');
      const byAdmin = await admin.put(setUrl, [{ id, rawValue: 'by-admin', generation: 2 }]);
      expect(byAdmin.status).toBe(200);
      expect(await entryValue(id)).toMatchObject({ rawValue: 'by-admin', generation: 3 });
    });
  });
});

// The failed sign-in counts are kept in memory (sign-in-throttle.ts), not in the database.
describe.each(oneDatabaseKind)('failed sign-in rate limit on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ kind });
  });
  afterAll(() => server?.close());

  it('answers 429 after 10 failures for one username and address, even for the right password; other usernames are unaffected', async () => {
    const admin = await server.admin();
    expect(
      (await admin.post('/api/users', { username: 'bystander', password: 'bystander-pw-for-tests', role: 'developer' }))
        .status,
    ).toBe(201);
    expect(
      (await admin.post('/api/users', { username: 'target', password: 'target-pw-123-for-tests', role: 'developer' }))
        .status,
    ).toBe(201);

    // A success resets the count, so the 10 below start from zero.
    for (let i = 0; i < 9; i++) expectProblem((await signIn(server, 'target', `wrong-${i}`)).res, 401);
    expect((await signIn(server, 'target', 'target-pw-123-for-tests')).res.status).toBe(200);

    for (let i = 0; i < 10; i++) {
      const { res } = await signIn(server, 'target', `wrong-${i}`);
      expect({ attempt: i, status: res.status }).toEqual({ attempt: i, status: 401 });
    }
    const limited = await signIn(server, 'target', 'wrong-again');
    expectProblem(limited.res, 429);
    expect(limited.res.body.type).toBe('https://tools.ietf.org/html/rfc6585#section-4');
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);

    const rightPassword = await signIn(server, 'target', 'target-pw-123-for-tests');
    expectProblem(rightPassword.res, 429);
    expect(rightPassword.res.headers.getSetCookie()).toEqual([]);
    expect((await rightPassword.client.get('/auth/me')).status).toBe(401);

    const other = await signIn(server, 'bystander', 'bystander-pw-for-tests');
    expect(other.res.status).toBe(200);
    expect(other.res.body.id).toBe('bystander');
    expect((await signIn(server, 'bystander', 'wrong')).res.status).toBe(401);

    // A session made before the lock-out keeps working.
    expect((await admin.get('/api/users/target')).status).toBe(200);
  });
});

describe.each(databaseKinds)('seeded admin on %s', (kind) => {
  it('creates the admin at start, keeps a changed password across restarts, and re-creates it only when missing', async () => {
    const store = await persistentDatabase(kind);
    try {
      const first = await startTestServer({ database: store.database, args: store.args });
      try {
        const users = await (await first.admin()).get('/api/users');
        expect(users.body).toEqual([expect.objectContaining({ username: 'admin', role: 'admin' })]);
        const admin = await first.admin();
        expect((await admin.get('/auth/me')).body).toMatchObject({
          id: 'admin',
          roles: ['admin'],
          policies: ['canAll', 'canChange', 'canReveal'],
        });
        expect((await admin.put('/api/users/admin', { password: 'changed-admin-pw-for-tests' })).status).toBe(200);
      } finally {
        await first.close();
      }

      const second = await startTestServer({ database: store.database, args: store.args });
      try {
        expect((await signIn(second, 'admin', 'changed-admin-pw-for-tests')).res.status).toBe(200);
        expect((await signIn(second, 'admin', ADMIN_PASSWORD)).res.status).toBe(401);
        const admin = await second.client().login('admin', 'changed-admin-pw-for-tests');
        const users = await admin.get('/api/users');
        expect(users.body.map((u: { username: string }) => u.username)).toEqual(['admin']);
        // Another admin removes the seeded one; the next start creates it again with the default password.
        expect(
          (
            await admin.post('/api/users', {
              username: 'second-admin',
              password: 'second-admin-pw-for-tests',
              role: 'admin',
            })
          ).status,
        ).toBe(201);
        const secondAdmin = await second.client().login('second-admin', 'second-admin-pw-for-tests');
        expect((await secondAdmin.delete('/api/users/admin')).status).toBe(204);
      } finally {
        await second.close();
      }

      const third = await startTestServer({ database: store.database, args: store.args });
      try {
        const { res } = await signIn(third, 'admin', ADMIN_PASSWORD);
        expect(res.status).toBe(200);
        expect(res.body.roles).toEqual(['admin']);
        expect((await signIn(third, 'second-admin', 'second-admin-pw-for-tests')).res.status).toBe(200);
      } finally {
        await third.close();
      }
    } finally {
      await store.dispose();
    }
  });

  it('warns at every start while the admin has the built-in default password, and not once it is changed', async () => {
    const store = await persistentDatabase(kind);
    const defaultPassword = [...store.args, '--Authentication:Local:DefaultAdminPassword=admin'];
    const isDefaultPasswordWarning = (line: { level: number; msg?: string }) =>
      line.level === 40 && /default password/i.test(line.msg ?? '');
    try {
      const log1 = memoryLogger();
      const first = await startTestServer({
        database: store.database,
        args: defaultPassword,
        deps: { logger: log1.logger },
      });
      try {
        expect(log1.lines.filter(isDefaultPasswordWarning)).toHaveLength(1);
        expect(log1.lines.find(isDefaultPasswordWarning)).toMatchObject({ username: 'admin' });
      } finally {
        await first.close();
      }

      const log2 = memoryLogger();
      const second = await startTestServer({
        database: store.database,
        args: defaultPassword,
        deps: { logger: log2.logger },
      });
      try {
        expect(log2.lines.filter(isDefaultPasswordWarning)).toHaveLength(1);
        const admin = await second.client().login('admin', 'admin');
        // With the default password only its own password change is open to it.
        expect((await admin.put('/api/users/admin', { password: 'no-longer-default' })).status).toBe(403);
        const change = { currentPassword: 'admin', newPassword: 'no-longer-default' };
        expect((await admin.put('/api/users/me/password', change)).status).toBe(204);
      } finally {
        await second.close();
      }

      const log3 = memoryLogger();
      const third = await startTestServer({
        database: store.database,
        args: defaultPassword,
        deps: { logger: log3.logger },
      });
      try {
        expect((await signIn(third, 'admin', 'no-longer-default')).res.status).toBe(200);
        // The logger is in use (requests are logged), yet it never warned.
        expect(log3.lines.length).toBeGreaterThan(0);
        expect(log3.lines.filter(isDefaultPasswordWarning)).toEqual([]);
      } finally {
        await third.close();
      }
    } finally {
      await store.dispose();
    }
  });

  it('does not warn when the configured default password is not the built-in one', async () => {
    const log = memoryLogger();
    const server = await startTestServer({ kind, deps: { logger: log.logger } });
    try {
      expect((await signIn(server, 'admin', ADMIN_PASSWORD)).res.status).toBe(200);
      expect(log.lines.length).toBeGreaterThan(0);
      expect(log.lines.filter((line) => /default password/i.test(String(line.msg)))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
