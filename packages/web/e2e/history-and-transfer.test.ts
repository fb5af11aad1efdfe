import type { Locator, Page } from 'playwright-core';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import {
  expectValue,
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

const TIMEOUT = 'Payments:TimeoutSeconds';
const PROVIDER = 'Payments:Provider';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A time as the browser's datetime-local field takes it (local time, whole seconds). */
function localInput(time: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${time.getFullYear()}-${p(time.getMonth() + 1)}-${p(time.getDate())}T${p(time.getHours())}:${p(time.getMinutes())}:${p(time.getSeconds())}`;
}

/** Ticks one key on the Compare screen, copies it after its preview, and closes the dialog. */
async function copyOne(page: Page, differences: Locator, key: string, previewed: string): Promise<void> {
  await differences.getByRole('checkbox', { name: `Copy ${key}` }).check();
  await page.getByRole('button', { name: 'Copy selected values →' }).click();
  const dialog = page.getByRole('dialog', { name: /^Copy 1 value/ });
  await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText(previewed));
  await dialog.getByRole('button', { name: 'Copy 1 value' }).click();
  await expectVisible(dialog.getByRole('status'));
  await dialog.getByRole('button', { name: 'Close' }).click();
}

describe('undo, restore and import in the console', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  const folder = mkdtempSync(path.join(tmpdir(), 'rc-console-files-'));

  const stored = async () => storedEntries(admin, serviceId, versionId);
  const set = async (values: Record<string, string>) => {
    const now = await stored();
    const items = Object.entries(values).map(([key, rawValue]) => ({
      id: now[key]?.id,
      rawValue,
      generation: now[key]?.generation,
    }));
    const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, items);
    expect(res.status).toBe(200);
  };
  const openVersion = async () => {
    const page = await ui.window();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`/services/${serviceId}/versions/${versionId}`);
    await expectVisible(page.getByLabel(TIMEOUT));
    return page;
  };

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    ({ serviceId, versionId } = await seedVersion(admin, 'payments', '1.0', [
      { key: TIMEOUT, valueType: 6, rawValue: '30', groupName: 'Payments' },
      { key: PROVIDER, valueType: 1, rawValue: 'Stripe', groupName: 'Payments' },
    ]));
  });
  afterAll(async () => ui?.close());

  it('undoes a bad change from the entry’s history in three clicks; the page shows it live', async () => {
    await set({ [TIMEOUT]: '999' });
    const page = await openVersion();
    await expectValue(page.getByLabel(TIMEOUT), '999');

    await page.getByRole('link', { name: TIMEOUT }).click();
    const drawer = page.getByRole('dialog', { name: TIMEOUT });
    await expectVisible(drawer.getByRole('table', { name: `History of ${TIMEOUT}` }));
    await drawer
      .getByRole('button', { name: /^Restore this value/ })
      .first()
      .click();
    const dialog = page.getByRole('dialog', { name: `Restore ${TIMEOUT}` });
    const preview = dialog.getByRole('table', { name: 'Changes of the preview' });
    await expectVisible(preview.getByText('999'));
    expect((await stored())[TIMEOUT]?.rawValue).toBe('999'); // a preview changes nothing
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();

    await expectVisible(dialog.getByRole('status').getByText('Applied 1 change as one batch.'));
    expect((await stored())[TIMEOUT]?.rawValue).toBe('30');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.keyboard.press('Escape');
    await expectValue(page.getByLabel(TIMEOUT), '30');
  });

  it('restores the version to a moment after a preview, and refuses a plan that went stale', async () => {
    await sleep(1100);
    const moment = new Date();
    await sleep(1100);
    await set({ [TIMEOUT]: '45', [PROVIDER]: 'Adyen' });
    const page = await openVersion();

    await page.getByRole('button', { name: 'Restore version to…' }).click();
    const dialog = page.getByRole('dialog', { name: /^Restore 1\.0 to/ });
    await dialog.getByLabel('Restore to').fill(localInput(moment));
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('Adyen'));

    // Someone changes a key between the preview and applying it: nothing is applied.
    await set({ [PROVIDER]: 'Braintree' });
    await dialog.getByRole('button', { name: 'Restore 2 entries' }).click();
    await expectVisible(dialog.getByText('Something changed since the preview'));
    expect((await stored())[TIMEOUT]?.rawValue).toBe('45');

    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('Braintree'));
    await dialog.getByRole('button', { name: 'Restore 2 entries' }).click();
    await expectVisible(dialog.getByRole('status'));
    const after = await stored();
    expect([after[TIMEOUT]?.rawValue, after[PROVIDER]?.rawValue]).toEqual(['30', 'Stripe']);
  });

  it('compares two versions and copies selected values into the target after a preview', async () => {
    const next = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.1' });
    const nextId = next.body.id as string;
    const base = `/api/configentries/${serviceId}/${nextId}`;
    await admin.post(base, { key: TIMEOUT, valueType: 6, rawValue: '10', groupName: 'Payments' });
    await admin.post(base, { key: PROVIDER, valueType: 1, rawValue: 'Mollie', groupName: 'Payments' });
    await admin.post(base, { key: 'Payments:Retries', valueType: 6, rawValue: '3', groupName: 'Payments' });
    const empty = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0' })).body.id as string;

    const page = await openVersion();
    await page.getByRole('link', { name: 'Compare' }).click();
    await page.getByLabel('Target version').selectOption({ label: '1.1' });
    const table = page.getByRole('table', { name: 'Differences between 1.0 and 1.1' });
    await expectVisible(table.getByRole('cell', { name: 'Payments:Retries', exact: true }));
    await expectVisible(table.getByRole('cell', { name: TIMEOUT, exact: true }));
    expect(page.url()).toContain(`target=${nextId}`);

    await copyOne(page, table, TIMEOUT, '10');
    const copied = await storedEntries(admin, serviceId, nextId);
    expect([copied[TIMEOUT]?.rawValue, copied[PROVIDER]?.rawValue]).toEqual([
      (await stored())[TIMEOUT]?.rawValue,
      'Mollie',
    ]);

    // A key only in the base is created in the target, with its type and details (canAll).
    await page.getByLabel('Base version').selectOption({ label: '1.1' });
    await page.getByLabel('Target version').selectOption({ label: '2.0' });
    await copyOne(page, page.getByRole('table', { name: 'Differences between 1.1 and 2.0' }), 'Payments:Retries', '3');
    const created = await storedEntries(admin, serviceId, empty);
    expect(Object.keys(created)).toEqual(['Payments:Retries']);
    expect(created['Payments:Retries']).toMatchObject({ rawValue: '3', generation: 1 });
  });

  it('exports YAML, imports a changed file after a preview, and names the key of a bad value', async () => {
    const page = await openVersion();
    await page.getByRole('button', { name: 'Export' }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Export as YAML' }).click();
    const exported = path.join(folder, 'payments.yaml');
    await (await downloading).saveAs(exported);
    const yaml = readFileSync(exported, 'utf8');
    expect(yaml).toContain('TimeoutSeconds: 30');
    writeFileSync(exported, yaml.replace('TimeoutSeconds: 30', 'TimeoutSeconds: 75'));

    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import into 1.0' });
    await dialog.locator('input[type="file"]').setInputFiles(exported);
    await expect.poll(() => dialog.getByLabel('Format').inputValue()).toBe('yaml');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('75'));
    await dialog.getByRole('button', { name: 'Apply 1 change' }).click();
    await expectVisible(dialog.getByRole('status'));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expectValue(page.getByLabel(TIMEOUT), '75');

    const bad = path.join(folder, 'bad.env');
    writeFileSync(bad, 'Payments__TimeoutSeconds=seventy\nPayments__Provider=Adyen\n');
    await page.getByRole('button', { name: 'Import' }).click();
    await dialog.locator('input[type="file"]').setInputFiles(bad);
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expectVisible(
      dialog
        .getByRole('alert')
        .getByText(/Payments:TimeoutSeconds/)
        .first(),
    );
    const after = await stored();
    expect([after[TIMEOUT]?.rawValue, after[PROVIDER]?.rawValue]).toEqual(['75', 'Stripe']);
  });
});
