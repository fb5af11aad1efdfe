import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, scannableDatabase, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

/**
 * An entry turning secret: its earlier values leave the outbox too (the delivery rows are redacted
 * as deliveries of a secret are), and the delivery of that change shows its value before redacted.
 */
describe.each(databaseKinds)('webhook deliveries of an entry that turns secret on %s', (kind) => {
  let server: TestServer;
  let database: TestDatabase;
  let bytes: () => Buffer;
  let admin: ApiClient;
  let receiver: WebhookReceiver;
  const FIRST = `plain-first-${randomUUID()}`;
  const SECOND = `plain-second-${randomUUID()}`;

  beforeAll(async () => {
    ({ db: database, bytes } = await scannableDatabase(kind));
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      database,
      args: [`--Secrets:MasterKeyFile=${keyFile}`, '--Webhooks:AllowPrivateNetworks=true'],
    });
    admin = await server.admin();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    await database.drop();
  });

  it('redacts the earlier deliveries of its values and sends the change with both sides redacted', async () => {
    const serviceId = (await admin.post('/api/services', { name: `turned-${kind}` })).body.id as string;
    const hook = await admin.post(`/api/services/${serviceId}/webhooks`, {
      url: receiver.url,
      eventTypes: ['entry.changed'],
    });
    expect(hook.status, hook.text).toBe(201);
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    const base = `/api/configentries/${serviceId}/${versionId}`;
    const created = await admin.post(base, { key: 'Db:Password', valueType: 1, rawValue: FIRST });
    expect(created.status, created.text).toBe(201);
    const set = await admin.put(`${base}/set`, [{ id: created.body.id, rawValue: SECOND, generation: 1 }]);
    expect(set.status, set.text).toBe(200);
    const sent = await receiver.waitFor(2);
    // What was sent before is sent (the receiver has it); what the outbox keeps is another matter.
    expect(sent.map((d) => d.body).join()).toContain(SECOND);

    const turned = await admin.put(`${base}/${created.body.id}`, { isSecret: true, generation: 2 });
    expect(turned.status, turned.text).toBe(200);
    const [, , change] = await receiver.waitFor(3);
    const payload = new Webhook(hook.body.secret).verify(change!.body, change!.headers) as any;
    const [updated] = payload.data.changes;
    expect(updated).toMatchObject({ action: 'Updated', entryId: created.body.id });
    expect(updated.before).toMatchObject({ rawValue: null, isSecret: false, redacted: true, generation: 2 });
    expect(updated.after).toMatchObject({ rawValue: null, isSecret: true, redacted: true, generation: 3 });
    // The same value on both sides: equal fingerprints, as everywhere.
    expect(updated.before.fingerprint).toBe(turned.body.fingerprint);
    expect(change!.body).not.toContain(SECOND);

    const rows = await server.internals.database.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('service_id', '=', serviceId)
      .execute();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.payload).not.toContain(FIRST);
      expect(row.payload).not.toContain(SECOND);
    }
    const logged = await admin.get(`/api/services/${serviceId}/webhooks/${hook.body.id}/deliveries?pageSize=100`);
    expect(logged.status, logged.text).toBe(200);
    expect(logged.text).not.toContain(FIRST);
    expect(logged.text).not.toContain(SECOND);

    await server.close();
    const stored = bytes();
    expect(stored.includes(Buffer.from('Db:Password'))).toBe(true);
    for (const marker of [FIRST, SECOND]) expect(stored.includes(Buffer.from(marker))).toBe(false);
  });
});
