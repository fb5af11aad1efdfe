import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValue, expectVisible, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';
import { manyEntries, registerVersion } from './support/register-version.js';

describe('a version with 2,000 entries and many services', () => {
  let ui: ConsoleUnderTest;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    ui = await startConsole();
    const admin = await ui.server.admin();
    for (let i = 1; i <= 25; i++) await admin.post('/api/services', { name: `svc-${String(i).padStart(2, '0')}` });
    serviceId = (await admin.post('/api/services', { name: 'big' })).body.id;
    versionId = await registerVersion(ui.server.baseUrl, serviceId, '3.0.0', manyEntries(2000));
  });
  afterAll(async () => ui?.close());

  it('pages through services with the search kept in the address', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await expectVisible(page.getByRole('link', { name: 'svc-20' }));
    expect(await page.getByRole('link', { name: 'svc-21' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expectVisible(page.getByRole('link', { name: 'svc-21' }));
    expect(await page.getByRole('link', { name: 'big' }).count()).toBe(1);
    await page.getByLabel('Search services').fill('svc-1');
    await expect.poll(() => page.url()).toContain('q=svc-1');
    await expect.poll(() => page.getByRole('link', { name: /^svc-/ }).count()).toBe(10);
  });

  it('renders only the rows in view, finds any entry by search, and edits it', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.goto(`/services/${serviceId}/versions/${versionId}`);
    await expectVisible(page.getByText('2000 entries'));
    await expectVisible(page.getByLabel('Module00:Setting0000'));
    // Virtualized: a small window of the 2,000 editors is in the page.
    const rendered = await page.getByRole('link', { name: /^Module\d\d:Setting\d{4}$/ }).count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(200);
    expect(await page.getByLabel('Module19:Setting1995').count()).toBe(0);

    await page.getByLabel('Search entries').fill('Setting1995');
    await expectVisible(page.getByText('1 of 2000 entries'));
    await expectValue(page.getByLabel('Module19:Setting1995'), 'value-1995');
    await page.getByLabel('Module19:Setting1995').fill('changed');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await expectVisible(page.getByText('Saved Module19:Setting1995'));

    // The search is in the address (written once typing pauses): a deep link opens the same filtered view.
    await expect.poll(() => page.url()).toContain('q=Setting1995');
    await page.reload();
    await expectValue(page.getByLabel('Module19:Setting1995'), 'changed');
    expect(await page.getByLabel('Search entries').inputValue()).toBe('Setting1995');
    await page.getByRole('link', { name: 'Module19:Setting1995' }).click();
    const drawer = page.getByRole('dialog', { name: 'Module19:Setting1995' });
    await expectVisible(drawer.getByRole('row', { name: /^Registered default/ }).getByText('value-1995'));
    const history = drawer.getByRole('table', { name: 'History of Module19:Setting1995' });
    await expectVisible(history.getByText('changed', { exact: true }));
    expect(page.url()).toMatch(/\/entries\/[0-9a-f-]{36}/);
  });
});
