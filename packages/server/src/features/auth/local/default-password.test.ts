import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService } from '@realtime-config/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const CHANGE_FIRST = 'Change the default password first';
const NEW_PASSWORD = 'a-long-new-admin-password';

/** Calls a freshly installed server must refuse while the admin signs in with `admin`. */
const refusedCalls: ReadonlyArray<readonly [method: string, url: string, body?: unknown]> = [
  ['POST', '/api/services/search', {}],
  ['POST', '/api/services', { name: 'made-with-the-default-password' }],
  ['GET', '/api/users'],
  ['POST', '/api/users', { username: 'backdoor', password: 'backdoor-password-1', role: 'admin' }],
  ['POST', '/api/auditlogs/search', {}],
  ['PUT', '/api/users/admin', { role: 'developer' }],
];

describe.each(databaseKinds)('the seeded admin with the built-in default password (%s)', (kind) => {
  let server: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString());
          done();
        },
      }),
    );
    server = await startTestServer({
      kind,
      args: ['--Authentication:Local:DefaultAdminPassword=admin', '--Grpc:RequireAuthentication=true'],
      deps: { logger },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('warns at start that the API refuses the account until the password is changed', () => {
    const warning = logLines
      .map((line) => JSON.parse(line) as { msg: string })
      .find((l) => /default password/.test(l.msg));
    expect(warning?.msg).toContain('the API refuses it everything but signing in and changing the password');
  });

  it('refuses every API call but sign-in, /auth/me, the password change and sign-out, then serves them all after the change', async () => {
    const admin = await server.client().login('admin', 'admin');
    for (const [method, url, body] of refusedCalls) {
      const res = await admin.request(method, url, body === undefined ? {} : { body });
      expect({ method, url, status: res.status }).toEqual({ method, url, status: 403 });
      expect(res.body).toMatchObject({ status: 403, detail: expect.stringContaining(CHANGE_FIRST) });
      expect(res.body.detail).toContain('PUT /api/users/me/password');
    }
    // The console's gRPC calls with the same session are refused as well.
    const grpc = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    const grpcCall = grpc.getConfig(
      { serviceId: randomUUID(), version: '1.0.0' },
      { headers: { cookie: admin.sessionCookie ?? '' } },
    );
    await expect(grpcCall).rejects.toSatisfy((error) => ConnectError.from(error).code === Code.PermissionDenied);

    expect((await admin.get('/auth/me')).body).toMatchObject({ id: 'admin', passwordChangeRequired: true });
    expect((await admin.get('/api/auth/me')).status).toBe(200);
    const other = await server.client().login('admin', 'admin');
    expect((await other.post('/auth/logout')).status).toBe(204);

    expect(
      (await admin.put('/api/users/me/password', { currentPassword: 'admin', newPassword: NEW_PASSWORD })).status,
    ).toBe(204);
    // Nothing the refused calls asked for happened.
    const after = await server.client().login('admin', NEW_PASSWORD);
    expect((await after.post('/api/services/search', {})).body).toMatchObject({ entities: [] });
    expect((await after.get('/api/users')).body).toEqual([
      expect.objectContaining({ username: 'admin', role: 'admin' }),
    ]);

    // The session that changed the password now does everything.
    for (const client of [admin, after] as ApiClient[]) {
      expect((await client.post('/api/services/search', {})).status).toBe(200);
      expect((await client.get('/auth/me')).body.passwordChangeRequired).toBe(false);
    }
    expect((await admin.post('/api/services', { name: 'after-the-change' })).status).toBe(201);
    expect(
      await grpc
        .getConfig({ serviceId: randomUUID(), version: '1.0.0' }, { headers: { cookie: admin.sessionCookie ?? '' } })
        .then(
          () => 'ok',
          (error: unknown) => ConnectError.from(error).code,
        ),
    ).not.toBe(Code.PermissionDenied);
  });
});

describe('an admin password set through Authentication:Local:DefaultAdminPassword', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is not the built-in default: the API serves the admin at once', async () => {
    const admin = await server.admin();
    expect((await admin.get('/auth/me')).body.passwordChangeRequired).toBe(false);
    expect((await admin.post('/api/services', { name: 'configured-admin' })).status).toBe(201);
    expect((await admin.get('/api/users')).status).toBe(200);
  });
});
