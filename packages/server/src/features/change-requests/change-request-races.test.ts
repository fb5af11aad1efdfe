import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Request {
  id: string;
  status: string;
  changes: Array<{ id: string; rawValue: string | null; generation: number }>;
  approvals: Array<{ userId: string }>;
}

const ROUNDS = 30;

/**
 * Approve, edit and apply of one change request race each other on PostgreSQL (READ COMMITTED,
 * several connections). Whatever the interleaving, a request is applied only with enough approvals
 * of exactly the content applied, and approvals given at once all count.
 */
describe.skipIf(!postgresUrl)('change requests raced on PostgreSQL', () => {
  let server: TestServer;
  let admin: ApiClient;
  let author: ApiClient;
  const reviewers: ApiClient[] = [];
  let serviceId: string;
  let versionId: string;
  let base: string;

  const entryOf = async (key: string) =>
    (
      (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
        id: string;
        key: string;
        rawValue: string | null;
        generation: number;
      }>
    ).find((e) => e.key === key)!;

  const openRequest = async (key: string, rawValue: string): Promise<Request> => {
    const entry = await entryOf(key);
    const res = await author.post(base, {
      title: `set ${key}`,
      changes: [{ id: entry.id, rawValue, generation: entry.generation }],
    });
    expect(res.status, res.text).toBe(201);
    return res.body as Request;
  };

  beforeAll(async () => {
    server = await startTestServer({ kind: 'postgres', args: ['--Versions:RequiredApprovals=2'] });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'raced-reviews' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    base = `/api/configversions/${serviceId}/${versionId}/changerequests`;
    for (let round = 0; round < ROUNDS; round++) {
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: `K${round}`,
        valueType: 1,
        rawValue: 'v0',
      });
    }
    const members = ['author', 'first-reviewer', 'second-reviewer'];
    for (const name of members) {
      await server.userWithRole(name, 'developer');
      await admin.post(`/api/services/${serviceId}/members`, { userId: name, role: 'editor' });
    }
    author = await server.client().login('author', 'author-password-for-tests');
    for (const name of members.slice(1))
      reviewers.push(await server.client().login(name, `${name}-password-for-tests`));
    await admin.put(`/api/configversions/${serviceId}/${versionId}`, { versionLabel: '1.0.0', protected: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('never applies content that lacks the approvals it needs, whatever races the approvals', async () => {
    let appliedRounds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const key = `K${round}`;
      const request = await openRequest(key, 'approved-content');
      const url = `${base}/${request.id}`;
      const entry = await entryOf(key);
      // One reviewer approves first; then the second approval races the author's edit of the values.
      expect((await reviewers[0]!.post(`${url}/approve`)).status).toBe(200);
      const [approval, edit] = await Promise.all([
        reviewers[1]!.post(`${url}/approve`),
        author.put(url, {
          title: `set ${key}`,
          changes: [{ id: entry.id, rawValue: 'unreviewed-content', generation: entry.generation }],
        }),
      ]);
      expect([200, 409]).toContain(approval.status);
      expect(edit.status, edit.text).toBe(200);
      const apply = await author.post(`${url}/apply`);
      const stored = (await admin.get(url)).body as Request;
      const value = (await entryOf(key)).rawValue;
      if (apply.status === 200) {
        appliedRounds++;
        // Applied: exactly the content both approvals were given to.
        expect(stored.status).toBe('applied');
        expect(stored.approvals.length).toBeGreaterThanOrEqual(2);
        expect(value).toBe(stored.changes[0]!.rawValue);
      } else {
        expect(apply.status, apply.text).toBe(409);
        expect(value).toBe('v0');
      }
      expect(value).not.toBe('unreviewed-content');
    }
    // The edit always drops the approvals (it came after the first one), so nothing here is applied.
    expect(appliedRounds).toBe(0);
  });

  it('counts approvals given at the same moment', async () => {
    for (let round = 0; round < 10; round++) {
      const request = await openRequest(`K${round}`, `together-${round}`);
      const url = `${base}/${request.id}`;
      const answers = await Promise.all(reviewers.map((r) => r.post(`${url}/approve`)));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const stored = (await admin.get(url)).body as Request;
      expect(stored.approvals).toHaveLength(2);
      expect(stored.status).toBe('approved');
      expect((await author.post(`${url}/apply`)).status).toBe(200);
    }
  });

  it('applies once when apply races an edit and a second apply', async () => {
    for (let round = 10; round < 20; round++) {
      const key = `K${round}`;
      const request = await openRequest(key, `reviewed-${round}`);
      const url = `${base}/${request.id}`;
      const entry = await entryOf(key);
      for (const r of reviewers) expect((await r.post(`${url}/approve`)).status).toBe(200);
      const [first, edit, second] = await Promise.all([
        author.post(`${url}/apply`),
        author.put(url, {
          title: `set ${key}`,
          changes: [{ id: entry.id, rawValue: 'unreviewed-content', generation: entry.generation }],
        }),
        reviewers[0]!.post(`${url}/apply`),
      ]);
      const statuses = [first.status, second.status];
      const value = (await entryOf(key)).rawValue;
      if (statuses.includes(200)) {
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
        expect(value).toBe(`reviewed-${round}`);
        expect(edit.status).toBe(409);
      } else {
        expect(value).toBe(entry.rawValue);
      }
      expect(value).not.toBe('unreviewed-content');
    }
  });
});
