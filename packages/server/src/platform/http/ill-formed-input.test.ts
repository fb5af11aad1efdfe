import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

describe('ill-formed JSON and text over REST', () => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'text-rules' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
  });
  afterAll(() => server?.close());

  const entryCount = async () =>
    ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as unknown[]).length;

  it.each([100_000, 401])('answers 400 (not 500) to JSON nested %i levels deep, even anonymously', async (depth) => {
    const body = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    for (const client of [server.client(), admin]) {
      const res = await client.post('/auth/login', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.detail).toMatch(/nested at most 400/);
    }
    const nestedValue = `{"key":"Deep","valueType":8,"rawValue":"{}","description":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expect((await admin.post(`/api/configentries/${serviceId}/${versionId}`, nestedValue)).status).toBe(400);
    expect((await server.client().get('/healthz')).status).toBe(200);
  });

  it('takes JSON nested 400 levels deep to validation', async () => {
    const res = await server.client().post('/auth/login', `${'['.repeat(400)}${']'.repeat(400)}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).not.toMatch(/nested/);
  });

  it.each([
    ['a lone high surrogate in a value', '{"key":"Lone","valueType":1,"rawValue":"a\\ud800b"}', 'rawValue'],
    ['a lone low surrogate in a key', '{"key":"Lone\\udc00","valueType":1,"rawValue":"x"}', 'key'],
    ['a lone surrogate in an object key', '{"key":"Ok","valueType":1,"rawValue":"x","\\ud83d":1}', '\ufffd'],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_what, body, field) => {
    const before = await entryCount();
    const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/well-formed Unicode/);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await entryCount()).toBe(before);
  });

  it('keeps well-formed astral characters (a surrogate pair) intact', async () => {
    const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Emoji',
      valueType: 1,
      rawValue: 'rocket 🚀',
    });
    expect(res.status).toBe(201);
    expect(res.body.rawValue).toBe('rocket 🚀');
  });

  it('refuses a lone surrogate in a search filter and in a sign-in name', async () => {
    expect((await admin.post('/api/services/search', '{"name":"\\ud800"}')).status).toBe(400);
    expect((await server.client().post('/auth/login', '{"username":"\\udfff","password":"x"}')).status).toBe(400);
  });

  it.each([
    ['10675199.02:48:05.4775807', 201],
    ['-10675199.02:48:05.4775808', 201],
    ['10675199.02:48:05.4775808', 400],
    ['-10675199.02:48:05.4775809', 400],
    ['99999999.00:00:00', 400],
  ])('checks the TimeSpan %s against .NET TimeSpan range (%i)', async (rawValue, status) => {
    const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: `Span:${rawValue.replace(/[^0-9]/g, '')}${rawValue.startsWith('-') ? 'n' : 'p'}`,
      valueType: 4,
      rawValue,
    });
    expect(res.status).toBe(status);
  });
});
