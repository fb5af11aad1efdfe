import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

/** A database two servers use one after the other: a folder for SQLite, one database for PostgreSQL. */
async function sharedDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'postgres') return createTestDatabase('postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-hooks-'));
  return {
    name: 'sqlite',
    args: [`--Database:DataDir=${dir}`],
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

describe.each(databaseKinds)('webhook routes on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let editor: ApiClient;
  let viewer: ApiClient;
  let serviceId: string;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `hook-routes-${kind}` })).body.id;
    base = `/api/services/${serviceId}/webhooks`;
    for (const [name, role] of [
      ['hook-editor', 'editor'],
      ['hook-viewer', 'viewer'],
    ] as const) {
      await server.userWithRole(`${name}-${kind}`, 'developer');
      await admin.post(`/api/services/${serviceId}/members`, { userId: `${name}-${kind}`, role });
    }
    editor = await server.client().login(`hook-editor-${kind}`, `hook-editor-${kind}-password-for-tests`);
    viewer = await server.client().login(`hook-viewer-${kind}`, `hook-viewer-${kind}-password-for-tests`);
  });
  afterAll(() => server.close());

  it('creates, lists, replaces and deletes webhooks; the secret is shown only at creation', async () => {
    const created = await admin.post(base, {
      url: 'http://127.0.0.1:9/hook',
      description: 'deploys',
      eventTypes: ['entry.changed'],
      keyPrefix: 'Payments:',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      serviceId,
      url: 'http://127.0.0.1:9/hook',
      description: 'deploys',
      eventTypes: ['entry.changed'],
      versionIds: null,
      keyPrefix: 'Payments:',
      enabled: true,
    });
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;

    const listed = await admin.get(base);
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    expect(listed.text).not.toContain('whsec_');
    const one = await admin.get(`${base}/${id}`);
    expect(one.body).toEqual(listed.body[0]);
    expect(one.body).not.toHaveProperty('secret');

    // PUT replaces: what it leaves out takes its default.
    const replaced = await admin.put(`${base}/${id}`, { url: 'https://example.com/hook', enabled: false });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({
      id,
      url: 'https://example.com/hook',
      description: null,
      eventTypes: null,
      keyPrefix: null,
      enabled: false,
    });
    expect(replaced.text).not.toContain('whsec_');

    expect((await admin.delete(`${base}/${id}`)).status).toBe(204);
    expect((await admin.get(`${base}/${id}`)).status).toBe(404);
    expect((await admin.delete(`${base}/${id}`)).status).toBe(404);
    expect((await admin.get(`/api/services/${crypto.randomUUID()}/webhooks`)).status).toBe(404);
  });

  it('audits creation, replacement, secret rotation and deletion, never with a secret or the URL path', async () => {
    const url = 'http://127.0.0.1:9/hooks/token-in-path-7f3a?key=token-in-query-9c1e';
    const created = await admin.post(base, { url, description: 'audited', keyPrefix: 'A:' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await admin.put(`${base}/${id}`, { url, enabled: false })).status).toBe(200);
    const rotated = await admin.post(`${base}/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await admin.delete(`${base}/${id}`)).status).toBe(204);

    const search = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'webhook' });
    expect(search.status, search.text).toBe(200);
    const records = (search.body.entities as any[]).filter((r) => r.entityId === id).reverse();
    expect(records.map((r) => r.action)).toEqual(['Created', 'Updated', 'SecretRotated', 'Deleted']);
    for (const r of records) expect(r).toMatchObject({ entityType: 'Webhook', userId: 'admin', serviceId });
    expect(records[0].changes.after).toMatchObject({
      id,
      url: 'http://127.0.0.1:9',
      description: 'audited',
      keyPrefix: 'A:',
      enabled: true,
    });
    expect(records[1].changes.before).toMatchObject({ enabled: true, description: 'audited' });
    expect(records[1].changes.after).toMatchObject({ enabled: false, description: null });
    expect(records[2].changes.after.previousSecretExpiresAt).toMatch(/^\d{4}-/);
    expect(records[3].changes.before).toMatchObject({ id, enabled: false });
    for (const text of [search.text, JSON.stringify(records)]) {
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain(created.body.secret.slice(6));
      expect(text).not.toContain(rotated.body.secret.slice(6));
      expect(text).not.toContain('token-in');
    }
    const byAction = await admin.post('/api/auditlogs/search', { serviceId, action: 'secretrotated' });
    expect(byAction.body.entities.map((r: any) => r.entityId)).toContain(id);
  });

  it('lets only owners and canAll users manage webhooks', async () => {
    const created = await admin.post(base, { url: 'http://127.0.0.1:9/x' });
    const id = created.body.id as string;
    for (const client of [editor, viewer]) {
      expect((await client.get(base)).status).toBe(403);
      expect((await client.post(base, { url: 'http://127.0.0.1:9/y' })).status).toBe(403);
      expect((await client.get(`${base}/${id}`)).status).toBe(403);
      expect((await client.put(`${base}/${id}`, { url: 'http://127.0.0.1:9/z' })).status).toBe(403);
      expect((await client.post(`${base}/${id}/rotate-secret`)).status).toBe(403);
      expect((await client.get(`${base}/${id}/deliveries`)).status).toBe(403);
      expect((await client.delete(`${base}/${id}`)).status).toBe(403);
    }
    expect((await server.client().get(base)).status).toBe(401);
    await admin.put(`/api/services/${serviceId}/members/hook-viewer-${kind}`, { role: 'owner' });
    expect((await viewer.get(base)).status).toBe(200);
    await admin.put(`/api/services/${serviceId}/members/hook-viewer-${kind}`, { role: 'viewer' });
    expect((await admin.delete(`${base}/${id}`)).status).toBe(204);
  });

  it('answers bad input with problem details and stores nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: `https://example.com/${'x'.repeat(2100)}` }, 'url'],
      [{ url: 'https://example.com', eventTypes: ['entry.created'] }, 'eventTypes'],
      [{ url: 'https://example.com', eventTypes: [] }, 'eventTypes'],
      [{ url: 'https://example.com', versionIds: ['nope'] }, 'versionIds'],
      [{ url: 'https://example.com', versionIds: [crypto.randomUUID()] }, 'versionIds'],
      [{ url: 'https://example.com', keyPrefix: '' }, 'keyPrefix'],
      [{ description: 'no url' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const res = await admin.post(base, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(res.body.errors ?? {}).join(), JSON.stringify(body)).toContain(field);
    }
    expect((await admin.get(base)).body).toEqual([]);
    const unknown = `${base}/${crypto.randomUUID()}`;
    expect((await admin.post(`${unknown}/rotate-secret`)).status).toBe(404);
    expect((await admin.get(`${unknown}/deliveries`)).status).toBe(404);
    expect((await admin.get(`${base}/${crypto.randomUUID()}/deliveries?pageToken=garbage`)).status).toBe(400);
  });
});

describe.each(databaseKinds)('webhook targets on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await sharedDatabase(kind);
  });
  afterAll(() => database.drop());

  it('refuses private, loopback, link-local and unspecified targets, when saved and at delivery', async () => {
    const receiver = await startWebhookReceiver();
    // A server that allows private networks saves webhooks to the loopback receiver, by address and by name.
    const permissive = await startTestServer({ database, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    const setUp = await permissive.admin();
    const serviceId = (await setUp.post('/api/services', { name: `targets-${kind}` })).body.id as string;
    const versionId = (await setUp.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id as string;
    const entry = (
      await setUp.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'A', valueType: 1, rawValue: '0' })
    ).body;
    const byAddress = (await setUp.post(`/api/services/${serviceId}/webhooks`, { url: receiver.url })).body;
    const byName = (
      await setUp.post(`/api/services/${serviceId}/webhooks`, { url: `http://localhost:${receiver.port}/hook` })
    ).body;
    await permissive.close();

    const strict = await startTestServer({ database, args: ['--Webhooks:RetrySchedule:0=0.1'] });
    try {
      const admin = await strict.admin();
      const base = `/api/services/${serviceId}/webhooks`;
      for (const url of [
        'http://127.0.0.1/hook',
        'http://localhost/hook',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[::ffff:7f00:1]/hook',
        'http://2130706433/hook',
        'http://0x7f.0.0.1/hook',
        'http://0177.0.0.1/hook',
        'http://10.1.2.3/hook',
        'http://192.168.0.1/hook',
        'http://172.16.5.4/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[fe80::1]/hook',
        'http://[fd00::1]/hook',
        'http://0.0.0.0/hook',
        'http://[::]/hook',
        'http://100.64.0.1/hook',
      ]) {
        const res = await admin.post(base, { url });
        expect(res.status, url).toBe(400);
        expect(res.body.errors.url, url).toHaveLength(1);
        // The refusal names the setting that allows a receiver on the operator's own network.
        expect(res.body.detail, url).toContain('Webhooks:AllowPrivateNetworks');
      }
      expect((await admin.get(base)).body).toHaveLength(2);

      // At delivery the same rule holds, after resolving the name: nothing reaches the receiver.
      const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: entry.id, rawValue: '1', generation: entry.generation },
      ]);
      expect(set.status, set.text).toBe(200);
      for (const hook of [byAddress, byName]) {
        await expect
          .poll(async () => (await admin.get(`${base}/${hook.id}/deliveries`)).body.deliveries[0]?.status as string, {
            timeout: 15_000,
          })
          .toBe('failed');
        const [delivery] = (await admin.get(`${base}/${hook.id}/deliveries`)).body.deliveries;
        expect(delivery.attempts).toHaveLength(2);
        for (const attempt of delivery.attempts) {
          expect(attempt.statusCode).toBeNull();
          expect(attempt.error).toMatch(/^refused: .* is a loopback address$/);
        }
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.close();
      await receiver.close();
    }
  });
});
