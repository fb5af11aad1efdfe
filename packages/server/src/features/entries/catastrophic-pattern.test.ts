import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A schema's patterns run on a linear-time engine (docs/adr/0012-linear-time-schema-patterns.md):
 * `^(a+)+$`, which takes a backtracking engine exponential time on 50,000 `a`s and a `!`, is
 * answered like any other broken rule, and the server keeps answering meanwhile. (No clock is
 * asserted: with a backtracking engine neither request would ever complete.)
 */
describe('a catastrophic pattern', () => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  afterAll(() => server.close());

  it('refuses the value with 400 while /healthz, asked while the set is in flight, answers', async () => {
    const serviceId = (await admin.post('/api/services', { name: 'redos' })).body.id;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
    const base = `/api/configentries/${serviceId}/${versionId}`;
    const entry = await admin.post(base, {
      key: 'Name',
      valueType: 1,
      rawValue: 'aaa',
      schema: { pattern: '^(a+)+$' },
    });
    expect(entry.status, entry.text).toBe(201);

    let settled = false;
    const set = admin
      .put(`${base}/set`, [{ id: entry.body.id, rawValue: `${'a'.repeat(50_000)}!`, generation: 1 }])
      .finally(() => {
        settled = true;
      });
    const health: Array<Promise<number>> = [];
    do {
      health.push(fetch(`${server.baseUrl}/healthz`).then((res) => res.status));
      await new Promise((resolve) => setImmediate(resolve));
    } while (!settled);

    const res = await set;
    expect(res.status, res.text).toBe(400);
    expect(res.body.violations).toEqual([
      expect.objectContaining({ key: 'Name', keyword: 'pattern', message: 'must match pattern "^(a+)+$"' }),
    ]);
    expect(health.length).toBeGreaterThan(0);
    expect(await Promise.all(health)).toEqual(health.map(() => 200));
    expect((await admin.get(base)).body[0].rawValue).toBe('aaa');
  });
});
