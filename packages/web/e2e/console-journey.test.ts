import { ValueType } from '@realtime-config/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '@realtime-config/test-support/test-server';
import { manyEntries, registerVersion } from './support/register-version.js';
import {
  expectValue,
  expectVisible,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

// An operator's day in the console, as docs/console.md names it: every query by role and name.
describe('the console, from sign-in to the audit log', () => {
  let ui: ConsoleUnderTest;
  let page: Page;
  let admin: ApiClient;
  const newPassword = 'correct-horse-battery-staple-42';

  beforeAll(async () => {
    // The seeded admin keeps the built-in default password, so the first sign-in must change it; gRPC
    // needs credentials (the default without appsettings.json): the live view signs in with its cookie.
    ui = await startConsole({
      args: ['--Authentication:Local:DefaultAdminPassword=admin', '--Grpc:RequireAuthentication=true'],
    });
    page = await ui.window();
  });
  afterAll(async () => ui?.close());

  it('refuses a wrong password with an alert, then leads a first sign-in to a password change', async () => {
    await page.goto('/services');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The username or password is wrong.');

    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectVisible(page.getByRole('heading', { name: 'Change your password' }));
    expect(await page.getByRole('link', { name: 'Services' }).count()).toBe(0);
    // Nothing else first: a deep link comes back here.
    await page.goto('/services');
    await expectVisible(page.getByRole('heading', { name: 'Change your password' }));

    await page.getByLabel('Current password').fill('admin');
    await page.getByLabel('New password').fill('admin');
    await page.getByLabel('Confirmation').fill('admin');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.getByText('The new password must have at least 12 characters').count()).toBe(1);

    // Long enough for the browser's rules, but on the server's common-password list: its answer shows on the field.
    await page.getByLabel('New password').fill('password1234');
    await page.getByLabel('Confirmation').fill('password1234');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectVisible(page.getByText('is too common; choose another'));

    await page.getByLabel('New password').fill(newPassword);
    await page.getByLabel('Confirmation').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectVisible(page.getByRole('heading', { name: 'Services', exact: true }));
    admin = await ui.server.client().login('admin', newPassword);
  });

  it('creates a service and a version; a service without versions shows the SDK snippet with its id', async () => {
    await page.getByRole('button', { name: 'New service' }).click();
    const dialog = page.getByRole('dialog', { name: 'New service' });
    await dialog.getByLabel('Name').fill('orders');
    await dialog.getByLabel('Repository URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expectVisible(dialog.getByText('Enter an absolute http(s) URL'));
    await dialog.getByLabel('Description').fill('Order processing');
    await dialog.getByLabel('Repository URL').fill('https://git.example.com/orders');
    await dialog.getByLabel('Contact e-mail').fill('orders@example.com');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'orders' }).click();
    await expectVisible(page.getByRole('heading', { level: 1, name: 'orders' }));
    const serviceId = /\/services\/([0-9a-f-]{36})/.exec(page.url())?.[1];
    expect(serviceId).toBeDefined();
    expect(await page.getByLabel('SDK example').textContent()).toContain(`serviceId: '${serviceId}'`);
    // The application registers a version (as the SDK's connect does): the open page shows it.
    const key = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'orders-app' });
    await registerVersion(ui.server.baseUrl, serviceId ?? '', '0.9.0', manyEntries(3), key.body.key);
    await expectVisible(page.getByRole('link', { name: '0.9.0' }));
    for (const tab of ['Versions', 'Members', 'API keys', 'Webhooks', 'Validators', 'Audit log']) {
      expect(await page.getByRole('link', { name: tab, exact: true }).count()).toBe(1);
    }

    await page.getByRole('button', { name: 'New version' }).click();
    await page.getByLabel('Version label').fill('1.0.0');
    await page.getByLabel('Description').fill('First release');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: '1.0.0' }).click();
    await expectVisible(page.getByRole('heading', { level: 1, name: '1.0.0' }));
    await expectVisible(page.getByRole('heading', { name: 'No entries yet' }));

    await page.getByRole('button', { name: 'New entry' }).click();
    const entryDialog = page.getByRole('dialog', { name: 'New entry' });
    await entryDialog.getByLabel('Key').fill('Payments:TimeoutSeconds');
    // The wrong type first: 30 is no time span, and the dialog says so before anything is sent.
    await entryDialog.getByLabel('Value type').selectOption('TimeSpan');
    await entryDialog.getByLabel('Value', { exact: true }).fill('30');
    await entryDialog.getByRole('button', { name: 'Create' }).click();
    await expectVisible(entryDialog.getByText(/^The value must be a time span/));
    await entryDialog.getByLabel('Value type').selectOption('Number');
    await entryDialog.getByLabel('Value', { exact: true }).fill('30');
    await entryDialog.getByLabel('Group', { exact: true }).fill('Payments');
    await entryDialog.getByLabel('Group description').fill('Payment gateway');
    await entryDialog.getByRole('button', { name: 'Create' }).click();
    await entryDialog.waitFor({ state: 'hidden' });
    await expectValue(page.getByLabel('Payments:TimeoutSeconds'), '30');
    await expectVisible(page.getByText('Payment gateway'));
  });

  it('edits a value of every type and saves them as one batch', async () => {
    const serviceId = /\/services\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const versionId = /\/versions\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const add = (key: string, valueType: number, rawValue: string | null, enumDefinition?: string) =>
      admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType,
        rawValue,
        enumDefinition,
        groupName: 'Payments',
      });
    await add('Payments:Enabled', ValueType.BOOLEAN, 'true');
    await add('Payments:Mode', ValueType.ENUM, 'Test', 'Live|Test');
    await add('Payments:Provider', ValueType.STRING, 'Stripe');
    await add('Payments:StartsAt', ValueType.DATE_TIME, null);
    await add('Payments:Window', ValueType.TIME_SPAN, '00:05:00');
    await add('Payments:Retries', ValueType.ARRAY, '[1,2]');
    await add('Payments:Limits', ValueType.JSON, '{"max":1}');
    // Created elsewhere: the open page learns of them live.
    await expectVisible(page.getByLabel('Payments:Limits'));

    await page.getByLabel('Payments:TimeoutSeconds').fill('45');
    await page.getByRole('switch', { name: 'Payments:Enabled' }).click();
    await page.getByLabel('Payments:Mode').selectOption('Live');
    await page.getByLabel('Payments:Provider').fill('Adyen');
    await page.getByLabel('Payments:StartsAt').fill('2026-13-01T00:00:00Z');
    await expectVisible(page.getByText('must be an ISO 8601 date and time').first());
    expect(await page.getByRole('button', { name: /^Save/ }).isDisabled()).toBe(true);
    await page.getByLabel('Payments:StartsAt').fill('2026-05-01T09:30:00Z');
    await page.getByLabel('Payments:Window').fill('01:30:00');
    await page.getByLabel('Payments:Retries').fill('[1, 2, 3]');
    await page.getByLabel('Payments:Limits').fill('{"max": 5}');

    const tray = page.getByRole('region', { name: '8 pending changes' });
    await expectVisible(tray);
    expect(await tray.getByRole('row', { name: /Payments:Provider\s+Stripe\s+Adyen/ }).count()).toBe(1);
    await tray.getByRole('button', { name: 'Save 8 changes' }).click();
    await expectVisible(page.getByText('Saved 8 values'));

    const stored = await storedEntries(admin, serviceId, versionId);
    expect(Object.fromEntries(Object.entries(stored).map(([k, e]) => [k, [e.rawValue, e.generation]]))).toEqual({
      'Payments:TimeoutSeconds': ['45', 2],
      'Payments:Enabled': ['false', 2],
      'Payments:Mode': ['Live', 2],
      'Payments:Provider': ['Adyen', 2],
      'Payments:StartsAt': ['2026-05-01T09:30:00Z', 2],
      'Payments:Window': ['01:30:00', 2],
      'Payments:Retries': ['[1, 2, 3]', 2],
      'Payments:Limits': ['{"max": 5}', 2],
    });
    // One batch: one transaction, so one change time for all eight.
    expect(new Set(Object.values(stored).map((e) => e.updatedAt)).size).toBe(1);
    expect(await page.getByRole('region', { name: /pending change/ }).count()).toBe(0);
  });

  it('shows a value changed through REST without a reload, keeping and flagging an edit in progress', async () => {
    const serviceId = /\/services\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const versionId = /\/versions\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const stored = await storedEntries(admin, serviceId, versionId);
    await page.getByLabel('Payments:TimeoutSeconds').fill('60');
    const set = (key: string, rawValue: string) =>
      admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: stored[key]?.id, rawValue, generation: stored[key]?.generation },
      ]);
    expect((await set('Payments:Provider', 'Braintree')).status).toBe(200);
    expect((await set('Payments:TimeoutSeconds', '90')).status).toBe(200);

    await expectValue(page.getByLabel('Payments:Provider'), 'Braintree');
    await expectVisible(page.getByText('Updated just now'));
    await expectVisible(page.getByText('Changed elsewhere', { exact: true }));
    expect(await page.getByLabel('Payments:TimeoutSeconds').inputValue()).toBe('60');

    // Saving the stale edit is refused (409): the Conflict dialog shows both values.
    await page.getByRole('button', { name: /^Save/ }).click();
    const dialog = page.getByRole('dialog', { name: /Conflict/ });
    await expectVisible(dialog);
    expect(await dialog.getByRole('heading', { name: /Conflict/ }).count()).toBe(1);
    const text = await dialog.textContent();
    expect(text).toContain('Stored value90');
    expect(text).toContain('Your value60');
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: /^Save/ }).click();
    await expectVisible(page.getByText('Saved Payments:TimeoutSeconds'));
    expect((await storedEntries(admin, serviceId, versionId))['Payments:TimeoutSeconds']).toMatchObject({
      rawValue: '60',
      generation: 4,
    });
  });

  it('resolves a conflict between two browser windows with Use stored value', async () => {
    const other = await ui.window();
    await signIn(other, 'admin', newPassword);
    await other.goto(page.url());
    await page.getByLabel('Payments:Provider').fill('Mollie');
    await other.getByLabel('Payments:Provider').fill('Worldpay');
    await other.getByLabel('Payments:Window').fill('00:00:30');
    await other.getByRole('button', { name: 'Save 2 changes' }).click();
    await expectVisible(other.getByText('Saved 2 values'));
    // The first window sees the change live; its own edit of Provider stays.
    await expectValue(page.getByLabel('Payments:Window'), '00:00:30');
    expect(await page.getByLabel('Payments:Provider').inputValue()).toBe('Mollie');

    await page.getByRole('button', { name: 'Save 1 change' }).click();
    const dialog = page.getByRole('dialog', { name: /Conflict/ });
    await dialog.getByRole('button', { name: 'Use stored value' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByLabel('Payments:Provider').inputValue()).toBe('Worldpay');
    expect(await page.getByRole('region', { name: /pending change/ }).count()).toBe(0);
  });

  it('lists the audit log with time, user, action and entity, filtered by entity type', async () => {
    await page.getByRole('link', { name: 'orders' }).click();
    await page.getByRole('link', { name: 'Audit log' }).click();
    const table = page.getByRole('table', { name: 'Audit log' });
    await expectVisible(table);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Time',
      'User',
      'Action',
      'Entity',
      'Changes',
    ]);
    expect(await table.getByRole('row', { name: /admin\s+Value set\s+Entry Payments:Mode/ }).count()).toBeGreaterThan(
      0,
    );
    expect(await table.getByRole('row', { name: /Created\s+Service orders/ }).count()).toBe(1);

    await page.getByLabel('Entity type').selectOption('Version');
    // Two versions: 0.9.0 registered by the application, 1.0.0 made in the console.
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    const versions = await table.getByRole('row').allTextContents();
    expect(versions.filter((row) => /Version (0\.9\.0|1\.0\.0)/.test(row))).toHaveLength(2);
    expect(versions.filter((row) => row.includes('Entry'))).toHaveLength(0);
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectVisible(page.getByRole('button', { name: 'Sign in' }));
    await page.goto('/services');
    await expectVisible(page.getByLabel('Username'));
  });
});
