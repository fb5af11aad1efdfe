import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A page of another origin (another port of the same host is enough) can make the browser post a
 * form or a text/plain body with the user's session cookie. Such requests must change nothing.
 */
describe.each(databaseKinds)('requests from another origin with the session cookie on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let foreign: string;

  const values = async () =>
    Object.fromEntries(
      (
        (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
          key: string;
          rawValue: string;
        }>
      ).map((e) => [e.key, e.rawValue]),
    );

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    // Same host, another port: SameSite=Lax lets the cookie through, the origin differs.
    foreign = `http://127.0.0.1:${server.port === 65535 ? 65534 : server.port + 1}`;
    serviceId = (await admin.post('/api/services', { name: 'csrf target' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'A',
      name: 'A',
      valueType: 1,
      rawValue: 'a',
    });
  });
  afterAll(() => server.close());

  const imports: Array<[string, string, string]> = [
    ['text/plain', 'env', 'A=stolen\nB=planted\n'],
    ['application/json', 'json', JSON.stringify({ A: 'stolen', B: 'planted' })],
    ['application/yaml', 'yaml', 'A: stolen\nB: planted\n'],
  ];

  it.each(imports)('refuses an import sent as %s from another origin, and changes nothing', async (type, format) => {
    const body = imports.find(([t]) => t === type)![2];
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=${format}&dryRun=false&createMissing=true`;
    const variants: Array<Record<string, string>> = [
      { origin: foreign },
      { origin: foreign, 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of variants) {
      const res = await admin.post(url, body, { contentType: type, headers });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/another origin/);
    }
    expect(await values()).toEqual({ A: 'a' });
  });

  it('accepts the same import from the console’s own origin', async () => {
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=env&dryRun=true`;
    const sameOrigin = await admin.post(url, 'A=mine\n', {
      contentType: 'text/plain',
      headers: { origin: server.baseUrl, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    const applied = await admin.post(
      `/api/configversions/${serviceId}/${versionId}/import?format=env&dryRun=false&basedOn=${encodeURIComponent(sameOrigin.body.basedOn)}`,
      'A=mine\n',
      { contentType: 'text/plain', headers: { origin: server.baseUrl } },
    );
    expect(applied.status).toBe(200);
    expect(await values()).toEqual({ A: 'mine' });
  });

  it('refuses every other change from another origin too: value sets, deletes, sign-in and sign-out', async () => {
    const entry = ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<any>)[0];
    const headers = { origin: foreign };
    const set = await admin.put(
      `/api/configentries/${serviceId}/${versionId}/set`,
      [{ id: entry.id, rawValue: 'x', generation: entry.generation }],
      { headers },
    );
    expect(set.status).toBe(403);
    expect((await admin.delete(`/api/services/${serviceId}`, { headers })).status).toBe(403);
    expect((await server.client().post('/auth/login', { username: 'admin', password: 'x' }, { headers })).status).toBe(
      403,
    );
    expect((await admin.post('/auth/logout', undefined, { headers })).status).toBe(403);
    // Still signed in, nothing changed; reading from another origin is harmless and still answers.
    expect((await admin.get('/auth/me', { headers })).status).toBe(200);
    expect(await values()).toEqual({ A: 'mine' });
    expect((await admin.get(`/api/services/${serviceId}`)).status).toBe(200);
  });

  it('leaves programs without browser headers alone', async () => {
    const res = await admin.post('/api/services', { name: 'from a script' });
    expect(res.status).toBe(201);
  });
});
