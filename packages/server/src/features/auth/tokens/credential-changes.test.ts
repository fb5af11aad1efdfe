import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A leaked personal access token or API key must not outlive its revocation: neither creates,
 * changes or deletes credentials or access (users, tokens, API keys, members and roles, webhook
 * secrets, a version's protection); that needs a signed-in session. Admins see and revoke anyone's
 * tokens.
 */
describe.each(databaseKinds)('credentials and access change only with a session on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let developer: ApiClient;
  let serviceId: string;
  let versionId: string;
  let adminToken: string;
  let apiKey: string;
  let keyId: string;
  let webhookId: string;

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    developer = await server.userWithRole(`dev-${kind}`, 'developer');
    serviceId = (await admin.post('/api/services', { name: `credentials-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: 'a' });
    await admin.post(`/api/services/${serviceId}/members`, { userId: `dev-${kind}`, role: 'editor' });
    adminToken = (await admin.post('/api/auth/tokens', { name: 'leaked' })).body.token;
    const key = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'ci', scopes: ['read', 'write'] });
    apiKey = key.body.key;
    keyId = key.body.id;
    const webhook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: 'https://93.184.216.34/hook' });
    expect(webhook.status, webhook.text).toBe(201);
    webhookId = webhook.body.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const changes = () => {
    const s = `/api/services/${serviceId}`;
    return [
      ['POST', '/api/users', { username: 'minted', password: 'a-long-password-for-minted', role: 'admin' }],
      ['PUT', `/api/users/dev-${kind}`, { role: 'admin' }],
      ['DELETE', `/api/users/dev-${kind}`, undefined],
      ['PUT', '/api/users/me/password', { currentPassword: 'x', newPassword: 'another-long-password' }],
      ['POST', '/api/auth/tokens', { name: 'minted' }],
      ['POST', `${s}/apikeys`, { name: 'minted', scopes: ['read', 'secrets'] }],
      ['DELETE', `${s}/apikeys/${keyId}`, undefined],
      ['POST', `${s}/members`, { userId: 'outsider', role: 'owner' }],
      ['PUT', `${s}/members/dev-${kind}`, { role: 'owner' }],
      ['DELETE', `${s}/members/dev-${kind}`, undefined],
      ['POST', `${s}/webhooks`, { url: 'https://93.184.216.34/other' }],
      ['POST', `${s}/webhooks/${webhookId}/rotate-secret`, undefined],
      ['PUT', `/api/configversions/${serviceId}/${versionId}`, { versionLabel: '1.0.0', protected: true }],
    ] as const;
  };

  /** Every credential and grant, without the times of last use (using a credential records one). */
  const state = async () => {
    const unused = (rows: Array<Record<string, unknown>>) => rows.map(({ lastUsedAt: _, ...rest }) => rest);
    return {
      users: (await admin.get('/api/users')).body,
      keys: unused((await admin.get(`/api/services/${serviceId}/apikeys`)).body),
      members: (await admin.get(`/api/services/${serviceId}/members`)).body,
      webhooks: (await admin.get(`/api/services/${serviceId}/webhooks`)).body,
      tokens: unused((await admin.get('/api/auth/tokens')).body),
      version: (await admin.get(`/api/configversions/${serviceId}/${versionId}`)).body,
    };
  };

  it("refuses every change of credentials or access to an admin's personal token, changing nothing", async () => {
    const before = await state();
    for (const [method, url, body] of changes()) {
      const res = await server.client().request(method, url, { body, ...bearer(adminToken) });
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(403);
      expect(res.body.detail).toMatch(/signed-in session.*personal access token/);
    }
    expect(await state()).toEqual(before);
    // What is not a change of access still works with the token.
    expect((await server.client().get('/api/users', bearer(adminToken))).status).toBe(200);
    expect((await server.client().get('/api/auth/tokens', bearer(adminToken))).status).toBe(200);
    const described = await server
      .client()
      .put(
        `/api/configversions/${serviceId}/${versionId}`,
        { versionLabel: '1.0.0', description: 'd' },
        bearer(adminToken),
      );
    expect(described.status, described.text).toBe(200);
  });

  it('refuses them to an API key too', async () => {
    const before = await state();
    for (const [method, url, body] of changes()) {
      const res = await server.client().request(method, url, { body, ...bearer(apiKey) });
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(403);
    }
    expect(await state()).toEqual(before);
  });

  it("lets an admin list and revoke another user's tokens; the token stops working at once", async () => {
    const made = await developer.post('/api/auth/tokens', { name: 'laptop' });
    expect(made.status).toBe(201);
    const listed = await admin.get(`/api/users/dev-${kind}/tokens`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((t: { id: string }) => t.id)).toContain(made.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    // Not for anyone but admins, not with a token, and only the user's own tokens by that path.
    expect((await developer.get(`/api/users/admin/tokens`)).status).toBe(403);
    expect((await developer.delete(`/api/users/dev-${kind}/tokens/${made.body.id as string}`)).status).toBe(403);
    expect(
      (await server.client().delete(`/api/users/dev-${kind}/tokens/${made.body.id as string}`, bearer(adminToken)))
        .status,
    ).toBe(403);
    expect((await admin.delete(`/api/users/admin/tokens/${made.body.id as string}`)).status).toBe(404);
    expect((await server.client().get('/api/auth/me', bearer(made.body.token))).status).toBe(200);
    expect((await admin.delete(`/api/users/dev-${kind}/tokens/${made.body.id as string}`)).status).toBe(204);
    expect((await server.client().get('/api/auth/me', bearer(made.body.token))).status).toBe(401);
  });
});
