import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const SECOND_US = 1_000_000;

/**
 * Every credential the server issues records when it was last used, but a busy client must not cost
 * a write per call: a use is recorded at most once a minute, for API keys and tokens alike.
 */
describe.each(databaseKinds)('the last use of a credential on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  /** Added to the server's clock. */
  let offsetUs = 0;

  beforeAll(async () => {
    server = await startTestServer({ kind, deps: { clock: { nowMicros: () => Date.now() * 1000 + offsetUs } } });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `last-used-${kind}` })).body.id;
  });
  afterAll(() => server.close());

  const kinds = [
    {
      name: 'an API key',
      make: async () => (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'app' })).body as any,
      secretOf: (made: any) => made.key as string,
      list: async () => (await admin.get(`/api/services/${serviceId}/apikeys`)).body as any[],
      path: () => `/api/services/${serviceId}`,
    },
    {
      name: 'a personal token',
      make: async () => (await admin.post('/api/auth/tokens', { name: 'script' })).body as any,
      secretOf: (made: any) => made.token as string,
      list: async () => (await admin.get('/api/auth/tokens')).body as any[],
      path: () => '/api/auth/me',
    },
  ];

  it.each(kinds)('records a use of $name at most once a minute', async ({ make, secretOf, list, path }) => {
    const made = await make();
    const secret = secretOf(made);
    const lastUsed = async () => (await list()).find((c) => c.id === made.id)?.lastUsedAt as string | null;
    const call = async () => {
      const res = await server.client().get(path(), { headers: { authorization: `Bearer ${secret}` } });
      expect(res.status, res.text).toBe(200);
    };
    expect(await lastUsed()).toBeNull();

    await call();
    const first = await lastUsed();
    expect(first).not.toBeNull();
    offsetUs += 30 * SECOND_US;
    await call();
    expect(await lastUsed()).toBe(first);

    offsetUs += 31 * SECOND_US;
    await call();
    const later = await lastUsed();
    expect(Date.parse(later!) - Date.parse(first!)).toBeGreaterThanOrEqual(61_000);
  });
});
