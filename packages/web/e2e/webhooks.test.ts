import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { seriousA11yViolations } from './support/axe.js';
import { expectVisible, seedVersion, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';

// A new user sets up a webhook, sees the signed delivery arrive and a failed one retried, and sends it again.
describe('the Webhooks tab', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let receiver: WebhookReceiver;
  let ids: Awaited<ReturnType<typeof seedVersion>>;

  beforeAll(async () => {
    ui = await startConsole({ args: ['--Webhooks:AllowPrivateNetworks=true', '--Webhooks:RetrySchedule:0=0.5'] });
    admin = await ui.server.admin();
    // The first attempt fails: the log shows it, and the retry that succeeds.
    receiver = await startWebhookReceiver({ answers: [500, 200] });
    ids = await seedVersion(admin, 'hooked', '1.0.0', [{ key: 'Payments:Mode', valueType: 1, rawValue: 'Live' }]);
    page = await ui.window({ reducedMotion: true });
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => {
    await receiver?.close();
    await ui?.close();
  });

  it('creates a webhook, shows its secret once, logs the deliveries and redelivers one', async () => {
    await page.goto(`/services/${ids.serviceId}`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expectVisible(page.getByRole('heading', { name: 'No webhooks yet' }));
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await expectVisible(dialog.getByText('Enter an absolute http(s) URL'));
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    const created = page.getByRole('dialog', { name: 'Webhook created' });
    const secret = (await created.getByLabel('Webhook secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(secret);

    const entry = ids.entries['Payments:Mode']!;
    const set = await admin.put(`/api/configentries/${ids.serviceId}/${ids.versionId}/set`, [
      { id: entry.id, rawValue: 'Test', generation: entry.generation },
    ]);
    expect(set.status, set.text).toBe(200);

    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await expectVisible(deliveries.getByText('succeeded'));
    const row = deliveries.getByRole('row').nth(1);
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('2');
    const [failed, delivered] = await receiver.waitFor(2);
    expect(failed!.answer).toBe(500);
    const event = new Webhook(secret).verify(delivered!.body, delivered!.headers) as any;
    expect(event.data.changes[0].after.rawValue).toBe('Test');

    await row.getByRole('button', { name: 'Redeliver' }).click();
    const [, , again] = await receiver.waitFor(3);
    expect(again!.headers['webhook-id']).toBe(delivered!.headers['webhook-id']);
    await expect.poll(async () => row.getByRole('cell').nth(3).textContent(), { timeout: 10_000 }).toBe('3');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
