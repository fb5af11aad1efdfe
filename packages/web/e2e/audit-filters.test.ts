import type { Page } from 'playwright-core';
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

const TIMEOUT = 'Payments:TimeoutSeconds';
const PROVIDER = 'Payments:Provider';

/** A time as a datetime-local field takes it (the browser's local time, to the minute). */
function localMinute(time: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${time.getFullYear()}-${p(time.getMonth() + 1)}-${p(time.getDate())}T${p(time.getHours())}:${p(time.getMinutes())}`;
}

// Two versions that share their keys, changed by two people, then promoted in Compare: the audit log tells them apart.
describe('the audit log of versions that share their keys', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let serviceId: string;
  let v1: string;
  let v2: string;
  const started = new Date();

  const rows = () => page.getByRole('table', { name: 'Audit log' }).getByRole('row');
  /** The record rows' texts (without the header row). */
  const records = async () => (await rows().allTextContents()).slice(1);

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    const entries = [
      { key: TIMEOUT, valueType: 6, rawValue: '30' },
      { key: PROVIDER, valueType: 1, rawValue: 'Stripe' },
    ];
    ({ serviceId, versionId: v1 } = await seedVersion(admin, 'payments', '1.0.0', entries));
    v2 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.1.0', copyFrom: v1 })).body.id;
    const dana = await ui.server.userWithRole('dana', 'developer');
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: 'dana' })).status).toBe(201);
    const now = await storedEntries(admin, serviceId, v2);
    const set = await dana.put(`/api/configentries/${serviceId}/${v2}/set`, [
      { id: now[TIMEOUT]?.id, rawValue: '120', generation: now[TIMEOUT]?.generation },
      { id: now[PROVIDER]?.id, rawValue: 'Adyen', generation: now[PROVIDER]?.generation },
    ]);
    expect(set.status).toBe(200);
    page = await ui.window();
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => ui?.close());

  it('copies every difference from Compare after selecting all; the comparison then says the versions are identical', async () => {
    await page.goto(`/services/${serviceId}/compare?base=${v2}&target=${v1}`);
    const differences = page.getByRole('table', { name: 'Differences between 1.1.0 and 1.0.0' });
    await expectVisible(differences.getByText('Adyen'));
    await page.getByRole('checkbox', { name: 'Select all' }).check();
    for (const key of [TIMEOUT, PROVIDER]) {
      expect(await differences.getByRole('checkbox', { name: `Copy ${key}` }).isChecked()).toBe(true);
    }
    await page.getByRole('button', { name: 'Copy selected values →' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy 2 values from 1.1.0 into 1.0.0' });
    await dialog.getByRole('button', { name: 'Copy 2 values' }).click();
    await expectVisible(dialog.getByRole('status').getByText('Applied 2 changes as one batch.'));
    // After applying, the dialog speaks of what was done, not of what would be.
    const applied = dialog.getByRole('table', { name: 'Applied changes' });
    expect(await applied.getByRole('columnheader').allTextContents()).toEqual(['Key', 'Action', 'Before', 'After']);
    expect(await applied.locator('caption').textContent()).toBe('2 keys changed, 0 unchanged');
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Without a reload: the comparison behind the dialog is current.
    await expectVisible(page.getByRole('heading', { name: '1.1.0 and 1.0.0 are identical' }));
    const stored = await storedEntries(admin, serviceId, v1);
    expect([stored[TIMEOUT]?.rawValue, stored[PROVIDER]?.rawValue]).toEqual(['120', 'Adyen']);
  });

  it('names the version of each entry record and audits the copy as Promoted', async () => {
    await page.goto(`/services/${serviceId}/audit`);
    await expectVisible(page.getByRole('table', { name: 'Audit log' }));
    expect(await page.getByRole('table', { name: 'Audit log' }).getByRole('columnheader').allTextContents()).toEqual([
      'Time',
      'User',
      'Action',
      'Entity',
      'Changes',
    ]);
    const promoted = rows().filter({ hasText: 'Copied from another version' });
    expect(await promoted.count()).toBe(2);
    for (const text of await promoted.allTextContents()) expect(text).toContain('in version 1.0.0');
    expect(
      await rows()
        .filter({ hasText: /dana\s*Value set/ })
        .first()
        .textContent(),
    ).toContain('in version 1.1.0');
  });

  it('filters by version, user, action and time range, kept in the address', async () => {
    await page.getByLabel('Version').selectOption({ label: '1.1.0' });
    await expect.poll(async () => (await records()).every((r) => r.includes('in version 1.1.0'))).toBe(true);
    // Created twice by the copy, set once each by dana.
    expect(await records()).toHaveLength(4);

    await page.getByLabel('User').fill('dana');
    await expect.poll(async () => (await records()).length).toBe(2);
    for (const r of await records()) expect(r).toMatch(/dana\s*Value set/);

    await page.reload();
    await expect.poll(async () => (await records()).length).toBe(2);
    expect(await page.getByLabel('Version').inputValue()).toBe(v2);
    expect(await page.getByLabel('User').inputValue()).toBe('dana');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Action').selectOption('Promoted');
    await expect.poll(async () => (await records()).length).toBe(2);
    for (const r of await records()) expect(r).toContain('Copied from another version');

    const hour = 60 * 60 * 1000;
    await page.getByLabel('From (your time)').fill(localMinute(new Date(started.getTime() + hour)));
    await expectVisible(page.getByRole('heading', { name: 'No record matches these filters' }));
    await page.getByLabel('From (your time)').fill(localMinute(new Date(started.getTime() - hour)));
    await page.getByLabel('To (included)').fill(localMinute(new Date(Date.now() + hour)));
    await expect.poll(async () => (await records()).length).toBe(2);
    await page.getByLabel('To (included)').fill(localMinute(new Date(started.getTime() - 2 * hour)));
    await expectVisible(page.getByRole('alert'));
    expect(await page.getByRole('alert').textContent()).toContain('ends before it starts');
  });
});
