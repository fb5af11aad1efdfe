import { ValueType } from '@realtime-config/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations } from './support/axe.js';
import {
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

describe('what each role may do in the console, and accessibility of the main screens', () => {
  let ui: ConsoleUnderTest;
  let ids: Awaited<ReturnType<typeof seedVersion>>;
  const developerPassword = 'dev-password-for-tests';

  beforeAll(async () => {
    ui = await startConsole();
    const admin = await ui.server.admin();
    ids = await seedVersion(admin, 'billing', '2.0.0', [
      {
        key: 'Billing:Currency',
        valueType: ValueType.ENUM,
        rawValue: 'EUR',
        enumDefinition: 'EUR|USD',
        groupName: 'Billing',
      },
      { key: 'Billing:Retries', valueType: ValueType.NUMBER, rawValue: '3', groupName: 'Billing' },
    ]);
    await seedVersion(admin, 'shipping', '1.0.0', []);
    expect(
      (await admin.post('/api/users', { username: 'dana', password: developerPassword, role: 'developer' })).status,
    ).toBe(201);
  });
  afterAll(async () => ui?.close());

  it('a canChange-only user sees values read-only with a reason until added as a member, and no admin actions', async () => {
    const page = await ui.window();
    await signIn(page, 'dana', developerPassword);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New service' }).count()).toBe(0);
    await page.getByRole('link', { name: 'billing' }).click();
    await expectVisible(page.getByText('You are not a member of this service'));
    expect(await page.getByRole('button', { name: 'Edit service' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New version' }).count()).toBe(0);
    await page.getByRole('link', { name: 'API keys' }).click();
    await expectVisible(page.getByText('Only owners of this service and admins see and manage API keys.'));
    await page.getByRole('link', { name: 'Members' }).click();
    await expectVisible(page.getByText('Only owners of this service and admins add or remove members.'));

    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    const retries = page.getByLabel('Billing:Retries');
    await expectVisible(retries);
    expect(await retries.isDisabled()).toBe(true);
    expect(await retries.getAttribute('aria-describedby')).toContain('values-read-only-reason');
    expect(await page.getByRole('button', { name: 'New entry' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete version' }).count()).toBe(0);

    // An admin adds dana as a member in their own window.
    const adminPage = await ui.window();
    await signIn(adminPage, 'admin', 'admin-password-for-tests');
    await adminPage.goto(`/services/${ids.serviceId}/members`);
    // Members are Local users: the form offers them in a list, not a free text the server would refuse.
    const username = adminPage.getByLabel('Username');
    await expect.poll(() => username.locator('option').allTextContents()).toContain('dana');
    await username.selectOption('dana');
    await adminPage.getByRole('button', { name: 'Add member' }).click();
    await expectVisible(adminPage.getByRole('button', { name: 'Remove dana' }));
    expect(await username.locator('option').allTextContents()).not.toContain('dana');

    await page.reload();
    await expectVisible(page.getByLabel('Billing:Retries'));
    await expect.poll(() => page.getByLabel('Billing:Retries').isDisabled()).toBe(false);
    await page.getByLabel('Billing:Retries').fill('5');
    await page.getByLabel('Billing:Currency').selectOption('USD');
    await page.getByRole('button', { name: 'Save 2 changes' }).click();
    await expectVisible(page.getByText('Saved 2 values'));
    const stored = await storedEntries(await ui.server.admin(), ids.serviceId, ids.versionId);
    expect([stored['Billing:Retries']?.rawValue, stored['Billing:Currency']?.rawValue]).toEqual(['5', 'USD']);
    // Still no metadata: the entry's details are read-only for a developer.
    await page.getByRole('link', { name: 'Billing:Retries' }).click();
    await expectVisible(page.getByText("Only owners of this service and admins change an entry's name"));
    expect(await page.getByRole('button', { name: 'Delete entry' }).count()).toBe(0);
  });

  it('an admin creates an API key shown once, revokes it, manages users and deletes a service after confirming', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.goto(`/services/${ids.serviceId}/api-keys`);
    await page.getByLabel('Key name').fill('billing-prod');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByRole('dialog', { name: 'API key created' });
    const key = (await shown.getByLabel('New API key').textContent()) ?? '';
    expect(key).toMatch(/^rck_/);
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(key).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke billing-prod' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expectVisible(page.getByText('Revoked'));

    // An entry's details: metadata saved with its generation, then the entry deleted after confirming.
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await page.getByRole('link', { name: 'Billing:Retries' }).click();
    const drawer = page.getByRole('dialog', { name: 'Billing:Retries' });
    await drawer.getByLabel('Display name').fill('Retries per invoice');
    await drawer.getByLabel('Description', { exact: true }).fill('How often a payment is retried');
    await drawer.getByRole('button', { name: 'Save details' }).click();
    await expectVisible(drawer.getByText('Details saved.'));
    await expectVisible(page.getByText('How often a payment is retried').first());
    const admin = await ui.server.admin();
    expect((await storedEntries(admin, ids.serviceId, ids.versionId))['Billing:Retries']).toMatchObject({
      name: 'Retries per invoice',
      description: 'How often a payment is retried',
    });
    await drawer.getByRole('button', { name: 'Delete entry' }).click();
    await page
      .getByRole('dialog', { name: 'Delete Billing:Retries?' })
      .getByRole('button', { name: 'Delete entry' })
      .click();
    await expect.poll(() => page.getByLabel('Billing:Retries').count()).toBe(0);
    expect((await storedEntries(admin, ids.serviceId, ids.versionId))['Billing:Retries']).toBeUndefined();

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Username').fill('erin');
    await dialog.getByLabel('Password').fill('erin');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expectVisible(dialog.getByText('The password must have at least 12 characters'));
    await dialog.getByLabel('Password').fill('erin-has-a-long-password');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expectVisible(page.getByRole('button', { name: 'Delete erin' }));
    expect(await page.getByRole('button', { name: 'Delete admin' }).count()).toBe(0);
    // The only admin cannot give up the role (the server would refuse): the menu says so instead.
    expect(await page.getByLabel('Role of admin').isDisabled()).toBe(true);
    expect(await page.getByLabel('Role of erin').isDisabled()).toBe(false);

    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByLabel('Search services').fill('ship');
    await expect.poll(() => page.getByRole('link', { name: 'billing' }).count()).toBe(0);
    await page.getByRole('link', { name: 'shipping' }).click();
    await page.getByRole('button', { name: 'Delete service' }).click();
    await page
      .getByRole('dialog', { name: 'Delete shipping?' })
      .getByRole('button', { name: 'Delete service' })
      .click();
    await expectVisible(page.getByRole('heading', { name: 'Services', exact: true }));
    expect((await (await ui.server.admin()).post('/api/services/search', { name: 'shipping' })).body.entities).toEqual(
      [],
    );
  });

  it('works with the keyboard alone, with a visible focus ring', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await expectVisible(page.getByLabel('Billing:Currency'));
    await page.getByLabel('Search entries').focus();
    // Tab from the search field to the first editor (past the group's entry link), as a keyboard user would.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === 'Billing:Currency') break;
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Billing:Currency');
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(outline.style).not.toBe('none');
    expect(outline.width).toBeGreaterThan(0);
    await page.keyboard.press('ArrowUp');
    expect(await page.getByLabel('Billing:Currency').inputValue()).toBe('EUR');
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Save 1 change') break;
    }
    await page.keyboard.press('Enter');
    await expectVisible(page.getByText('Saved Billing:Currency'));
  });

  it('has no serious or critical axe violations on the main screens, light and dark', async () => {
    const screens = (page: Page) =>
      [
        ['sign-in', async () => page.goto('/sign-in')],
        ['services', async () => page.goto('/services')],
        ['service', async () => page.goto(`/services/${ids.serviceId}/versions`)],
        ['version', async () => page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`)],
        ['audit', async () => page.goto(`/services/${ids.serviceId}/audit`)],
        ['users', async () => page.goto('/users')],
      ] as const;
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.window({ colorScheme });
      for (const [name, open] of screens(page)) {
        if (name === 'services') await signIn(page, 'admin', 'admin-password-for-tests');
        await open();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await expect.poll(() => page.getByLabel(/^Loading/).count()).toBe(0);
        for (const v of await seriousA11yViolations(page))
          found.push(`${colorScheme} ${name}: ${v.id} ${v.help} ${v.targets.join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  });
});
