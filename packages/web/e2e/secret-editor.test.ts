import { ValueType } from '@realtime-config/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { seriousA11yViolations } from './support/axe.js';
import { expectVisible, seedVersion, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';

const SECRET = 'sk_live_console_original';
const NEW_SECRET = 'sk_live_console_replaced';

// A secret's editor shows no value, takes a new one without revealing the old, and reveals for canReveal users.
describe('the masked editor of a secret', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let ids: Awaited<ReturnType<typeof seedVersion>>;
  const developerPassword = 'dev-password-for-secrets';

  const pageText = (page: Page) => page.evaluate(() => document.body.innerText);
  const reveal = async () =>
    (
      await admin.post(
        `/api/configentries/${ids.serviceId}/${ids.versionId}/${ids.entries['Payments:ApiKey']?.id ?? ''}/reveal`,
      )
    ).body.rawValue as string;

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    ids = await seedVersion(admin, 'payments', '1.0.0', [
      { key: 'Payments:ApiKey', valueType: ValueType.STRING, rawValue: SECRET, isSecret: true },
      { key: 'Payments:Url', valueType: ValueType.STRING, rawValue: 'https://pay.example' },
    ]);
    expect(
      (await admin.post('/api/users', { username: 'sam', password: developerPassword, role: 'developer' })).status,
    ).toBe(201);
    expect((await admin.post(`/api/services/${ids.serviceId}/members`, { userId: 'sam', role: 'editor' })).status).toBe(
      201,
    );
  });
  afterAll(async () => ui?.close());

  it('shows •••••• and Secret, sets a new value without revealing the old, and reveals only to canReveal users', async () => {
    const page = await ui.window();
    await signIn(page, 'sam', developerPassword);
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    const editor = page.getByLabel('Payments:ApiKey', { exact: true });
    await expectVisible(editor);
    expect(await editor.getAttribute('placeholder')).toBe('••••••');
    expect(await editor.inputValue()).toBe('');
    await expectVisible(page.getByText('Secret', { exact: true }));
    expect(await page.getByRole('button', { name: 'Reveal' }).count()).toBe(0);
    expect(await pageText(page)).not.toContain(SECRET);

    await editor.fill(NEW_SECRET);
    await page.getByRole('button', { name: /^Save/ }).click();
    await expectVisible(page.getByText('Saved Payments:ApiKey'));
    expect(await reveal()).toBe(NEW_SECRET);
    expect(await page.getByLabel('Payments:ApiKey', { exact: true }).inputValue()).toBe('');
    expect(await pageText(page)).not.toContain(NEW_SECRET);
    expect(await seriousA11yViolations(page)).toEqual([]);

    const adminPage = await ui.window();
    await signIn(adminPage, 'admin', ADMIN_PASSWORD);
    await adminPage.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await expectVisible(adminPage.getByLabel('Payments:ApiKey', { exact: true }));
    expect(await pageText(adminPage)).not.toContain(NEW_SECRET);
    const button = adminPage.getByRole('button', { name: 'Reveal', exact: true });
    expect(await button.getAttribute('aria-describedby')).toBe(`key-${ids.entries['Payments:ApiKey']?.id ?? ''}`);
    await button.click();
    await expectVisible(adminPage.getByText(NEW_SECRET));
    const audit = await admin.post('/api/auditlogs/search', { serviceId: ids.serviceId, action: 'Revealed' });
    expect(audit.body.entities.some((r: { userId: string }) => r.userId === 'admin')).toBe(true);
    await adminPage.getByRole('button', { name: 'Hide', exact: true }).click();
    await adminPage.getByText(NEW_SECRET).waitFor({ state: 'detached' });
    expect(await pageText(adminPage)).not.toContain(NEW_SECRET);
    await adminPage.mouse.move(0, 0); // a hovered button has its hover colours
    expect(await seriousA11yViolations(adminPage)).toEqual([]);
  });
});
