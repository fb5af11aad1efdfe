import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { seriousA11yViolations } from './support/axe.js';
import {
  expectValue,
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

const PHONE = { width: 390, height: 844 };
const TIMEOUT = 'Payments:TimeoutSeconds';

/** Nothing of the page is wider than the screen: no sideways scrolling. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    screen: document.documentElement.clientWidth,
  }));
  expect(widths.page).toBeLessThanOrEqual(widths.screen);
}

/** The element lies within the screen's width and is not covered at its centre by anything else. */
async function expectOnScreen(locator: Locator): Promise<void> {
  await expectVisible(locator);
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  if (!box) throw new Error('no box');
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  const onTop = await locator.evaluate((element) => {
    const r = element.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return top !== null && (element === top || element.contains(top));
  });
  expect(onTop).toBe(true);
}

// An on-call engineer with a phone: every page fits 390 px, and a bad change is undone from the history.
describe('the console on a phone (390 × 844)', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let ids: Awaited<ReturnType<typeof seedVersion>>;

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    ids = await seedVersion(admin, 'payments-on-call', '1.0.0', [
      { key: TIMEOUT, valueType: 6, rawValue: '30', groupName: 'Payments', description: 'Gateway call timeout' },
      { key: 'Payments:Provider', valueType: 1, rawValue: 'Stripe', groupName: 'Payments' },
      { key: 'Payments:Mode', valueType: 5, rawValue: 'Test', enumDefinition: 'Live|Test', groupName: 'Payments' },
      { key: 'Payments:Limits', valueType: 8, rawValue: '{"max":100,"currency":"EUR"}', groupName: 'Payments' },
      { key: 'Payments:Window', valueType: 4, rawValue: '00:05:00', groupName: 'Payments' },
      { key: 'Payments:PreferredAcquirerRoutingTable', valueType: 1, rawValue: 'default', groupName: 'Payments' },
    ]);
    page = await ui.window({ width: PHONE.width });
    await page.setViewportSize(PHONE);
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => ui?.close());

  it('shows the whole header, and no page scrolls sideways', async () => {
    for (const name of ['Sign out']) await expectOnScreen(page.getByRole('button', { name }));
    for (const name of ['Services', 'Users'])
      await expectOnScreen(page.getByRole('banner').getByRole('link', { name }));
    const pages = [
      '/services',
      `/services/${ids.serviceId}/versions`,
      `/services/${ids.serviceId}/members`,
      `/services/${ids.serviceId}/audit`,
      `/services/${ids.serviceId}/versions/${ids.versionId}`,
      `/services/${ids.serviceId}/compare?base=${ids.versionId}`,
      '/users',
    ];
    for (const url of pages) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await expect.poll(() => page.getByLabel(/^Loading/).count()).toBe(0);
      await expectNoSidewaysScroll(page);
    }
  });

  it('puts each editor below its key, the key whole on a line, and keeps the value being edited above the tray', async () => {
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    const editor = page.getByLabel(TIMEOUT);
    await expectVisible(editor);
    const key = page.getByRole('link', { name: TIMEOUT });
    const [keyBox, editorBox] = [await key.boundingBox(), await editor.boundingBox()];
    // One line of monospace text, not a letter or two per line; the editor as wide as the screen allows.
    expect(keyBox?.height).toBeLessThan(30);
    expect(editorBox?.y).toBeGreaterThan((keyBox?.y ?? 0) + (keyBox?.height ?? 0));
    expect(editorBox?.width).toBeGreaterThan(300);

    // The last value of the page: the tray appears where it was, so the page moves it up.
    const last = page.getByLabel('Payments:Window');
    await last.evaluate((element) => element.scrollIntoView({ block: 'end' }));
    await last.fill('00:10:00');
    const tray = page.getByRole('region', { name: '1 pending change' });
    await expectVisible(tray);
    await expect
      .poll(async () => ((await last.boundingBox())?.y ?? 0) + ((await last.boundingBox())?.height ?? 0))
      .toBeLessThanOrEqual((await tray.boundingBox())?.y ?? 0);
    await expectOnScreen(tray.getByRole('button', { name: 'Save 1 change' }));

    // The tray's list, opened, shows the new value whole on the screen.
    await tray.getByRole('button', { name: 'Show changes' }).click();
    await expectOnScreen(tray.getByRole('row', { name: /Payments:Window/ }).getByText('00:10:00'));
    await tray.getByRole('button', { name: 'Discard all' }).click();
    await expect.poll(() => page.getByRole('region', { name: /pending change/ }).count()).toBe(0);
  });

  it('undoes a bad change from the history drawer: Restore this value is on the screen', async () => {
    const stored = await storedEntries(admin, ids.serviceId, ids.versionId);
    const set = await admin.put(`/api/configentries/${ids.serviceId}/${ids.versionId}/set`, [
      { id: stored[TIMEOUT]?.id, rawValue: '999', generation: stored[TIMEOUT]?.generation },
    ]);
    expect(set.status).toBe(200);
    await expectValue(page.getByLabel(TIMEOUT), '999');

    await page.getByRole('link', { name: TIMEOUT }).click();
    const drawer = page.getByRole('dialog', { name: TIMEOUT });
    await expectVisible(drawer.getByRole('table', { name: `History of ${TIMEOUT}` }));
    expect((await drawer.boundingBox())?.width).toBeLessThanOrEqual(PHONE.width);
    const restore = drawer.getByRole('button', { name: /^Restore this value/ }).first();
    await expectOnScreen(restore);
    await restore.click();
    const dialog = page.getByRole('dialog', { name: `Restore ${TIMEOUT}` });
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('999'));
    const apply = dialog.getByRole('button', { name: 'Restore', exact: true });
    await expectOnScreen(apply);
    await apply.click();
    await expectVisible(dialog.getByRole('status'));
    expect((await storedEntries(admin, ids.serviceId, ids.versionId))[TIMEOUT]?.rawValue).toBe('30');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await drawer.getByRole('button', { name: 'Close' }).click();
    await expectValue(page.getByLabel(TIMEOUT), '30');
  });

  it('has no serious or critical axe violations at phone width, light and dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await ui.window({ colorScheme, width: PHONE.width });
      await phone.setViewportSize(PHONE);
      await signIn(phone, 'admin', ADMIN_PASSWORD);
      for (const url of [
        `/services/${ids.serviceId}/versions/${ids.versionId}`,
        `/services/${ids.serviceId}/audit`,
        `/services/${ids.serviceId}/compare?base=${ids.versionId}`,
      ]) {
        await phone.goto(url);
        await phone.getByRole('heading', { level: 1 }).first().waitFor();
        await expect.poll(() => phone.getByLabel(/^Loading/).count()).toBe(0);
        for (const v of await seriousA11yViolations(phone)) {
          found.push(`${colorScheme} ${url}: ${v.id} ${v.help} ${v.targets.join(', ')}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
