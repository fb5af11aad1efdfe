import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

/** `realtime-config webhooks …`: add one, see its deliveries arrive signed, send one again, remove it. */
describe('the CLI: webhooks', () => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: WebhookReceiver;
  let user: CliUser;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    receiver = await startWebhookReceiver();
    serviceId = (await admin.post('/api/services', { name: 'payments' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Payments:Mode',
      valueType: 1,
      rawValue: 'a',
    });
    user = new CliUser(server.baseUrl);
    expect((await user.run(['login', '--user', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`)).code).toBe(0);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it('adds a webhook, lists it, shows its deliveries, redelivers one and removes it', async () => {
    const added = await user.run(['webhooks', 'add', 'payments', receiver.url, '--key-prefix', 'Payments:']);
    expect(added.code, added.stderr).toBe(0);
    const [id, secret] = added.stdout.trim().split('\n');
    expect(secret).toMatch(/^whsec_/);
    expect(added.stderr).toContain('shown only now');

    const listed = await user.run(['webhooks', 'list', 'payments']);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('Payments:');
    expect(listed.stdout).not.toContain('whsec_');

    expect((await user.run(['set', 'payments', '1.0', 'Payments:Mode=b'])).code).toBe(0);
    const [first] = await receiver.waitFor(1);
    expect(JSON.parse(first!.body).data.changes[0].after.rawValue).toBe('b');
    expect(first!.headers['webhook-signature']).toMatch(/^v1,/);

    let deliveries: any;
    await expect
      .poll(async () => {
        deliveries = JSON.parse((await user.run(['--json', 'webhooks', 'deliveries', 'payments', id!])).stdout);
        return deliveries.deliveries[0]?.status;
      })
      .toBe('succeeded');
    const deliveryId = deliveries.deliveries[0].id as string;
    const table = await user.run(['webhooks', 'deliveries', 'payments', id!]);
    expect(table.stdout).toMatch(new RegExp(`${deliveryId}\\s+entry.changed\\s+\\S+\\s+succeeded\\s+1\\s+200`));

    const again = await user.run(['webhooks', 'redeliver', 'payments', id!, deliveryId]);
    expect(again.code, again.stderr).toBe(0);
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(deliveryId);

    expect((await user.run(['webhooks', 'remove', 'payments', id!])).code).toBe(0);
    expect((await user.run(['webhooks', 'list', 'payments'])).stdout).toContain('No webhooks.');
    const missing = await user.run(['webhooks', 'remove', 'payments', id!]);
    expect(missing.code).toBe(EXIT.notFound);
  });

  it('says why a target is refused', async () => {
    const refused = await user.run(['webhooks', 'add', 'payments', 'ftp://example.com/hook']);
    expect(refused.code).toBe(EXIT.rejected);
    expect(refused.stderr).toContain('url:');
  });
});
