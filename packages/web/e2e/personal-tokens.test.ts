import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations } from './support/axe.js';
import { expectVisible, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';

/** Personal access tokens on the account page: shown once, copied, used, revoked; and by an admin on the Users page. */
describe('personal access tokens in the console', () => {
  let ui: ConsoleUnderTest;
  const password = (user: string) => `${user}-password-for-tests`;

  beforeAll(async () => {
    ui = await startConsole();
    await ui.server.userWithRole('erin', 'developer');
  });
  afterAll(async () => ui?.close());

  it('a member creates a personal access token, copies it once, uses it, and revokes it', async () => {
    const page = await ui.window();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.baseUrl });
    await signIn(page, 'erin', password('erin'));
    await page.getByRole('link', { name: 'erin' }).click();
    await expectVisible(page.getByRole('heading', { name: 'Personal access tokens' }));
    await page.getByLabel('Name').fill('deploy pipeline');
    await page.getByLabel('Expires in').selectOption('7');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('dialog', { name: 'Token created' });
    const token = (await shown.getByLabel('New token').textContent()) ?? '';
    expect(token).toMatch(/^rcp_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expectVisible(shown.getByRole('button', { name: 'Copied' }));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'hidden' });
    // Shown once: the list names it by its first characters only.
    expect(await page.getByText(token).count()).toBe(0);
    const row = page
      .getByRole('table', { name: 'Personal access tokens' })
      .getByRole('row', { name: /deploy pipeline/ });
    await expectVisible(row.getByText(token.slice(0, 12)));
    expect(await seriousA11yViolations(page)).toEqual([]);

    const bearer = { headers: { authorization: `Bearer ${token}` } };
    expect((await ui.server.client().get('/api/auth/me', bearer)).body).toMatchObject({ id: 'erin' });
    await row.getByRole('button', { name: 'Revoke deploy pipeline' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke deploy pipeline?' })
      .getByRole('button', { name: 'Revoke token' })
      .click();
    await expectVisible(row.getByText('Revoked'));
    expect((await ui.server.client().get('/api/auth/me', bearer)).status).toBe(401);
  });

  it("an admin opens a member's tokens on the Users page and revokes a leaked one", async () => {
    const erin = await ui.server.client().login('erin', password('erin'));
    const leaked = (await erin.post('/api/auth/tokens', { name: 'leaked laptop' })).body as { token: string };
    const bearer = { headers: { authorization: `Bearer ${leaked.token}` } };
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Tokens of erin' }).click();
    const drawer = page.getByRole('dialog', { name: 'Personal access tokens of erin' });
    const row = drawer
      .getByRole('table', { name: 'Personal access tokens' })
      .getByRole('row', { name: /leaked laptop/ });
    await expectVisible(row.getByText(leaked.token.slice(0, 12)));
    expect(await seriousA11yViolations(page)).toEqual([]);
    await row.getByRole('button', { name: 'Revoke leaked laptop' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke leaked laptop?' })
      .getByRole('button', { name: 'Revoke token' })
      .click();
    await expectVisible(row.getByText('Revoked'));
    expect((await ui.server.client().get('/api/auth/me', bearer)).status).toBe(401);
  });
});
