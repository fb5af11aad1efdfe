import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import {
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

// New entry offers the editor each type has on the version page, and says the format before a failure.
describe('the New entry dialog', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let ids: Awaited<ReturnType<typeof seedVersion>>;

  const stored = async () => storedEntries(admin, ids.serviceId, ids.versionId);

  /** Opens the dialog with a key and a type chosen; answers the dialog. */
  async function newEntry(key: string, type: string): Promise<Locator> {
    await page.getByRole('button', { name: 'New entry' }).click();
    const dialog = page.getByRole('dialog', { name: 'New entry' });
    await dialog.getByLabel('Key').fill(key);
    await dialog.getByLabel('Value type').selectOption(type);
    return dialog;
  }

  async function create(dialog: Locator): Promise<void> {
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    ids = await seedVersion(admin, 'typed-entries', '1.0.0', []);
    page = await ui.window();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await expectVisible(page.getByRole('heading', { name: 'No entries yet' }));
  });
  afterAll(async () => ui?.close());

  it('says the format of a type before anything is typed, and checks it as you type', async () => {
    const dialog = await newEntry('Payments:Window', 'TimeSpan');
    const value = dialog.getByLabel('Value', { exact: true });
    // The hint is the field's description, read with it by screen readers.
    const described = async () =>
      value.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
    expect(await described()).toContain('00:05:00 is five minutes');
    await value.fill('25:00:00');
    await expectVisible(dialog.getByText(/^The value must be a time span/));
    await value.fill('1.02:00:00');
    await expectVisible(dialog.getByText('1 d 2 h'));
    await create(dialog);

    await (await newEntry('Payments:StartsAt', 'DateTime')).getByText(/ISO 8601: 2026-05-01T09:30:00Z/).waitFor();
    const dateDialog = page.getByRole('dialog', { name: 'New entry' });
    await dateDialog.getByLabel('Value', { exact: true }).fill('2026-05-01T09:30:00Z');
    await create(dateDialog);
    expect((await stored())['Payments:Window']?.rawValue).toBe('1.02:00:00');
    expect((await stored())['Payments:StartsAt']?.rawValue).toBe('2026-05-01T09:30:00Z');
  });

  it('offers the allowed values of an Enum in a list, not a text to type', async () => {
    const dialog = await newEntry('Payments:Mode', 'Enum');
    await dialog.getByLabel('Allowed values').fill('Live|Test|Sandbox');
    const value = dialog.getByRole('combobox', { name: 'Value', exact: true });
    expect(await value.locator('option').allTextContents()).toEqual(['null (not set)', 'Live', 'Test', 'Sandbox']);
    await value.selectOption('Sandbox');
    await create(dialog);
    expect((await stored())['Payments:Mode']).toMatchObject({ rawValue: 'Sandbox' });
  });

  it('has a switch for a Boolean, a number field for a Number and a JSON editor for Json', async () => {
    let dialog = await newEntry('Payments:Enabled', 'Boolean');
    await dialog.getByRole('switch', { name: 'Value' }).click();
    await create(dialog);

    dialog = await newEntry('Payments:TimeoutSeconds', 'Number');
    expect(await dialog.getByRole('spinbutton', { name: 'Value' }).count()).toBe(1);
    await dialog.getByRole('spinbutton', { name: 'Value' }).fill('45');
    await create(dialog);

    dialog = await newEntry('Payments:Limits', 'Json');
    const code = dialog.getByRole('textbox', { name: 'Value' });
    await code.click();
    await page.keyboard.type('[1, 2]');
    await expectVisible(dialog.getByText(/^The value must be a JSON object/));
    await page.keyboard.press('Control+A');
    await page.keyboard.type('{"max": 5}');
    await create(dialog);

    const now = await stored();
    expect([now['Payments:Enabled']?.rawValue, now['Payments:TimeoutSeconds']?.rawValue]).toEqual(['true', '45']);
    expect(JSON.parse(now['Payments:Limits']?.rawValue ?? 'null')).toEqual({ max: 5 });
    // Each shows on the page in its own editor.
    expect(await page.getByRole('switch', { name: 'Payments:Enabled' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Payments:Mode').inputValue()).toBe('Sandbox');
  });

  it('creates an entry without a value as null, and starts from no value when the type changes', async () => {
    const dialog = await newEntry('Payments:Note', 'String');
    await dialog.getByLabel('Value', { exact: true }).fill('some text');
    await dialog.getByLabel('Value type').selectOption('Number');
    expect(await dialog.getByLabel('Value', { exact: true }).inputValue()).toBe('');
    await dialog.getByLabel('Value type').selectOption('String');
    await create(dialog);
    expect((await stored())['Payments:Note']).toMatchObject({ rawValue: null, valueType: 1 });
  });
});
