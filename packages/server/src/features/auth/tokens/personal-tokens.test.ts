import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const DAY_US = 24 * 60 * 60 * 1_000_000;
const UNAUTHENTICATED = 16;

/**
 * Personal access tokens: a person's credential for pipelines, acting as them (a Local user's
 * current role) on REST and gRPC, until it expires or is revoked; then every call, open streams
 * included, is refused.
 */
describe.each(databaseKinds)('personal access tokens on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  /** Added to the server's clock: token expiry follows it. */
  let offsetUs = 0;
  let serviceId: string;
  let versionId: string;

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const makeToken = async (client: ApiClient, body: object = { name: 'pipeline' }) => {
    const res = await client.post('/api/auth/tokens', body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string; expiresAt: string; prefix: string };
  };

  beforeAll(async () => {
    server = await startTestServer({
      kind,
      args: ['--Grpc:RequireAuthentication=true', '--Authentication:Tokens:MaxLifetimeDays=30'],
      deps: { clock: { nowMicros: () => Date.now() * 1000 + offsetUs } },
    });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `tokens-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: 'a' });
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  it('is shown once, listed without itself, and acts as its user on REST', async () => {
    const created = await makeToken(admin, { name: 'ci' });
    expect(created.token).toMatch(/^rcp_[\w-]{43}$/);
    expect(created.prefix).toBe(created.token.slice(0, 12));
    const listed = (await admin.get('/api/auth/tokens')).body as Array<Record<string, unknown>>;
    const mine = listed.find((t) => t.id === created.id)!;
    expect(mine).toMatchObject({ name: 'ci', prefix: created.prefix, lastUsedAt: null, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const me = await server.client().get('/api/auth/me', bearer(created.token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: 'admin', policies: ['canAll', 'canChange', 'canReveal'] });
    const minted = await server.client().post('/api/auth/tokens', { name: 'child' }, bearer(created.token));
    expect(minted.status).toBe(403);
    expect(((await admin.get('/api/auth/tokens')).body as Array<{ name: string }>).map((t) => t.name)).not.toContain(
      'child',
    );
    const created2 = await server.client().post('/api/services', { name: `by-token-${kind}` }, bearer(created.token));
    expect(created2.status).toBe(201);
    const audit = await admin.post('/api/auditlogs/search', { serviceId: created2.body.id, entityType: 'Service' });
    expect(audit.body.entities[0]).toMatchObject({ userId: 'admin', action: 'Created' });
  });

  it('expires: never later than the longest lifetime, refused with 401 once past', async () => {
    const asked = new Date(Date.now() + 365 * 24 * 3600_000).toISOString();
    const clamped = await makeToken(admin, { name: 'too long', expiresAt: asked });
    const days = (Date.parse(clamped.expiresAt) - Date.now()) / (DAY_US / 1000);
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30.01);
    expect((await admin.post('/api/auth/tokens', { name: 'past', expiresAt: '2001-01-01T00:00:00Z' })).status).toBe(
      400,
    );

    const short = await makeToken(admin, { name: 'short', expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect((await server.client().get('/api/auth/me', bearer(short.token))).status).toBe(200);
    offsetUs += 2 * 3600 * 1_000_000;
    try {
      const expired = await server.client().get('/api/auth/me', bearer(short.token));
      expect(expired.status).toBe(401);
      expect(expired.body.detail).toMatch(/expired or has been revoked/);
    } finally {
      offsetUs -= 2 * 3600 * 1_000_000;
    }
  });

  it('ends REST access and open gRPC streams once revoked; another user cannot revoke it', async () => {
    const token = await makeToken(admin, { name: 'streamer' });
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token.token}`);
    const stream = grpcClient.subscribe({ serviceId, versionId }, metadata);
    try {
      await stream.until((s) => s.events.length > 0);
      const dev = await server.userWithRole(`other-${kind}`, 'developer');
      expect((await dev.delete(`/api/auth/tokens/${token.id}`)).status).toBe(404);
      expect((await admin.delete(`/api/auth/tokens/${token.id}`)).status).toBe(204);
      expect((await server.client().get('/api/auth/me', bearer(token.token))).status).toBe(401);
      await stream.until((s) => s.status !== undefined);
      expect(stream.status?.code).toBe(UNAUTHENTICATED);
      const listed = (await admin.get('/api/auth/tokens')).body as Array<{ id: string; revokedAt: string | null }>;
      expect(listed.find((t) => t.id === token.id)?.revokedAt).not.toBeNull();
    } finally {
      stream.cancel();
    }
  });

  it("acts with a Local user's current role, and a new password, role or deletion revokes it", async () => {
    const dev = await server.userWithRole(`dev-${kind}`, 'developer');
    const token = await makeToken(dev);
    const me = async () => server.client().get('/api/auth/me', bearer(token.token));
    expect((await me()).body.policies).toEqual(['canChange']);
    expect((await server.client().post('/api/services', { name: 'nope' }, bearer(token.token))).status).toBe(403);

    // A role change revokes the user's tokens: what the old role granted ends.
    expect((await admin.put(`/api/users/dev-${kind}`, { role: 'admin' })).status).toBe(200);
    expect((await me()).status).toBe(401);
    const promoted = await server.client().login(`dev-${kind}`, `dev-${kind}-password-for-tests`);
    const second = await makeToken(promoted);
    expect((await server.client().get('/api/auth/me', bearer(second.token))).body.policies).toEqual([
      'canAll',
      'canChange',
      'canReveal',
    ]);
    expect((await admin.put(`/api/users/dev-${kind}`, { password: 'a-brand-new-password-of-dev' })).status).toBe(200);
    expect((await server.client().get('/api/auth/me', bearer(second.token))).status).toBe(401);

    const third = await makeToken(await server.client().login(`dev-${kind}`, 'a-brand-new-password-of-dev'));
    expect((await admin.delete(`/api/users/dev-${kind}`)).status).toBe(204);
    expect((await server.client().get('/api/auth/me', bearer(third.token))).status).toBe(401);
  });

  it('refuses a token that does not exist, and token management to API keys', async () => {
    expect((await server.client().get('/api/auth/me', bearer(`rcp_${'x'.repeat(43)}`))).status).toBe(401);
    const key = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'k' })).body.key as string;
    expect((await server.client().post('/api/auth/tokens', { name: 'x' }, bearer(key))).status).toBe(403);
  });
});
