import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedCleanly, type WatchedService } from '@realtime-config/test-support/refusal-checks';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

/**
 * A change request no one could apply is refused when it is opened or edited with a value that
 * breaks its entry's schema, and its values are checked again when it is applied.
 */
describe.each(databaseKinds)('change requests and schemas on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let reviewer: ApiClient;
  let receiver: WebhookReceiver;
  let watched: WatchedService;
  let serviceId: string;
  let versionId: string;
  let base: string;
  let timeout: Entry;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    receiver = await startWebhookReceiver();
    serviceId = (await admin.post('/api/services', { name: `cr-schemas-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    timeout = (
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Timeout',
        valueType: 6,
        rawValue: '30',
        schema: { minimum: 1, maximum: 300 },
      })
    ).body;
    await server.userWithRole(`cr-reviewer-${kind}`, 'developer');
    await admin.post(`/api/services/${serviceId}/members`, { userId: `cr-reviewer-${kind}`, role: 'editor' });
    reviewer = await server.client().login(`cr-reviewer-${kind}`, `cr-reviewer-${kind}-password-for-tests`);
    await admin.put(`/api/configversions/${serviceId}/${versionId}`, { protected: true });
    base = `/api/configversions/${serviceId}/${versionId}/changerequests`;
    const webhook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: receiver.url });
    watched = { serviceId, webhookId: webhook.body.id };
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  const change = (rawValue: string) => [{ id: timeout.id, rawValue, generation: timeout.generation }];

  it('refuses to open a request whose value breaks its schema', async () => {
    const res = await expectRefusedCleanly(server, admin, watched, [versionId], () =>
      admin.post(base, { title: 'too long', changes: change('3000') }),
    );
    expect(res.body.violations).toEqual([
      { key: 'Timeout', entryId: timeout.id, instancePath: '', keyword: 'maximum', message: 'must be <= 300' },
    ]);
    expect((await admin.get(base)).body).toEqual([]);
  });

  it('refuses to edit a request to a value that breaks its schema; the request stays as it was', async () => {
    const opened = await admin.post(base, { title: 'longer', changes: change('45') });
    expect(opened.status, opened.text).toBe(201);
    const res = await admin.put(`${base}/${opened.body.id}`, { title: 'longer', changes: change('0') });
    expect(res.status, res.text).toBe(400);
    expect(res.body.violations[0]).toMatchObject({ key: 'Timeout', keyword: 'minimum' });
    expect((await admin.get(`${base}/${opened.body.id}`)).body.changes[0].rawValue).toBe('45');
    await admin.post(`${base}/${opened.body.id}/withdraw`);
  });

  it('checks the values again when the request is applied', async () => {
    const opened = await admin.post(base, { title: 'later', changes: change('200') });
    expect(opened.status, opened.text).toBe(201);
    expect((await reviewer.post(`${base}/${opened.body.id}/approve`)).status).toBe(200);
    // The rules tightened since the request was opened (written directly: a protected version's
    // metadata changes only as the request's generation check would notice).
    await sql`update entries set schema = ${JSON.stringify({ maximum: 100 })} where id = ${timeout.id}`.execute(
      server.internals.database.db,
    );
    const res = await expectRefusedCleanly(server, admin, watched, [versionId], () =>
      admin.post(`${base}/${opened.body.id}/apply`),
    );
    expect(res.body.violations[0]).toMatchObject({ key: 'Timeout', keyword: 'maximum' });
    expect((await admin.get(`${base}/${opened.body.id}`)).body.status).toBe('approved');
  });
});
