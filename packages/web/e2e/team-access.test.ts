import { ValueType } from '@realtime-config/protocol';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** The review flow: roles set in Members, a protected version, a change request opened, approved and applied. */
describe('team access in the console: roles, protected versions, change requests', () => {
  let ui: ConsoleUnderTest;
  let ids: Awaited<ReturnType<typeof seedVersion>>;
  const password = (user: string) => `${user}-password-for-tests`;
  const versionPath = () => `/services/${ids.serviceId}/versions/${ids.versionId}`;
  const stored = async (key: string) =>
    (await storedEntries(await ui.server.admin(), ids.serviceId, ids.versionId))[key]?.rawValue;

  beforeAll(async () => {
    ui = await startConsole();
    const admin = await ui.server.admin();
    ids = await seedVersion(admin, 'payments', '1.0.0', [
      { key: 'Payments:TimeoutSeconds', valueType: ValueType.NUMBER, rawValue: '30', groupName: 'Payments' },
      { key: 'Payments:Retries', valueType: ValueType.NUMBER, rawValue: '3', groupName: 'Payments' },
    ]);
    // Developers (canChange) only: what they may do here comes from their role in the service.
    for (const user of ['erin', 'olga', 'vic']) await ui.server.userWithRole(user, 'developer');
  });
  afterAll(async () => ui?.close());

  /** The text an element's aria-describedby points at. */
  const description = async (page: Page, element: Locator) => {
    const ids = (await element.getAttribute('aria-describedby')) ?? '';
    const texts = await Promise.all(ids.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    return texts.join(' ');
  };

  /** The article of one change request in the `Change requests` section. */
  const request = (page: Page, title: string) => page.getByRole('article', { name: title });

  it('an admin adds members with a role and changes a role in Members', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.goto(`/services/${ids.serviceId}/members`);
    for (const [user, role] of [
      ['erin', 'editor'],
      ['olga', 'viewer'],
      ['vic', 'viewer'],
    ] as const) {
      const username = page.getByLabel('Username');
      await expect.poll(() => username.locator('option').allTextContents()).toContain(user);
      await username.selectOption(user);
      await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Add member' }).click();
      await expectValue(page.getByRole('combobox', { name: `Role of ${user}` }), role);
    }
    await page.getByRole('combobox', { name: 'Role of olga' }).selectOption('owner');
    const admin = await ui.server.admin();
    await expect
      .poll(async () => (await admin.get(`/api/services/${ids.serviceId}/members`)).body)
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ userId: 'erin', role: 'editor' }),
          expect.objectContaining({ userId: 'olga', role: 'owner' }),
          expect.objectContaining({ userId: 'vic', role: 'viewer' }),
        ]),
      );
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('an owner who is not an admin creates an API key with the scopes chosen', async () => {
    const page = await ui.window();
    await signIn(page, 'olga', password('olga'));
    await page.goto(`/services/${ids.serviceId}/api-keys`);
    await page.getByLabel('Key name').fill('deploy-pipeline');
    // read and register by default; a pipeline that sets values needs write instead of register.
    expect(await page.getByRole('checkbox', { name: 'read' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'register' }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'register' }).uncheck();
    await page.getByRole('checkbox', { name: 'write' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByRole('dialog', { name: 'API key created' });
    const key = (await shown.getByLabel('New API key').textContent()) ?? '';
    await shown.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /deploy-pipeline/ });
    await expectVisible(row.getByText('write', { exact: true }));
    expect(await row.getByText('register', { exact: true }).count()).toBe(0);
    const keys = (await (await ui.server.admin()).get(`/api/services/${ids.serviceId}/apikeys`)).body;
    expect(keys).toEqual([expect.objectContaining({ name: 'deploy-pipeline', scopes: ['read', 'write'] })]);
    const bearer = { headers: { authorization: `Bearer ${key}` } };
    expect((await ui.server.client().get(`/api/configversions/${ids.serviceId}`, bearer)).status).toBe(200);
  });

  it('a viewer reads the members and values but gets no control to change them', async () => {
    const page = await ui.window();
    await signIn(page, 'vic', password('vic'));
    await page.goto(`/services/${ids.serviceId}/members`);
    await expectVisible(page.getByRole('table', { name: 'Members' }));
    expect(await page.getByRole('combobox', { name: /^Role of / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    await page.goto(versionPath());
    const timeout = page.getByLabel('Payments:TimeoutSeconds');
    await expectVisible(timeout);
    await expect.poll(() => page.getByText('You are a viewer of this service').count()).toBeGreaterThan(0);
    expect(await timeout.isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Protected' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Import' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New entry' }).count()).toBe(0);
  });

  it('an owner protects the version; an editor requests review; the author cannot approve; the owner approves and applies', async () => {
    const owner = await ui.window();
    await signIn(owner, 'olga', password('olga'));
    await owner.goto(versionPath());
    const protectedSwitch = owner.getByRole('switch', { name: 'Protected' });
    await expectVisible(owner.getByLabel('Payments:TimeoutSeconds'));
    expect(await protectedSwitch.isChecked()).toBe(false);
    await protectedSwitch.click({ force: true });
    await expect.poll(() => protectedSwitch.isChecked()).toBe(true);
    await expect
      .poll(
        async () => (await (await ui.server.admin()).get(`/api/configversions/${ids.serviceId}/${ids.versionId}`)).body,
      )
      .toMatchObject({ protected: true });
    // What the server refuses on a protected version is disabled, and a note says why.
    const newEntry = owner.getByRole('button', { name: 'New entry' });
    await expect.poll(() => newEntry.isDisabled()).toBe(true);
    expect(await description(owner, newEntry)).toMatch(
      /^This version is protected: changes go through a change request/,
    );
    expect(await owner.getByRole('button', { name: 'Edit version' }).isEnabled()).toBe(true);
    await owner.getByRole('button', { name: 'Import' }).click();
    const importing = owner.getByRole('dialog', { name: 'Import into 1.0.0' });
    expect(await importing.getByRole('checkbox', { name: 'Create missing keys' }).isDisabled()).toBe(true);
    await importing.getByRole('button', { name: 'Cancel' }).click();
    await importing.waitFor({ state: 'hidden' });

    const editor = await ui.window();
    await signIn(editor, 'erin', password('erin'));
    await editor.goto(versionPath());
    await expectVisible(editor.getByText('Protected', { exact: true }));
    await expectVisible(editor.getByRole('heading', { name: 'Change requests', exact: true }));
    await editor.getByLabel('Payments:TimeoutSeconds').fill('45');
    // On a protected version the tray offers review instead of saving.
    expect(await editor.getByRole('button', { name: /^Save/ }).count()).toBe(0);
    await editor.getByRole('button', { name: 'Request review…' }).click();
    const dialog = editor.getByRole('dialog', { name: 'Request review' });
    const diff = dialog.getByRole('table', { name: 'Changes to review' });
    await expectVisible(diff.getByRole('row', { name: /Payments:TimeoutSeconds.*30.*45/ }));
    await dialog.getByRole('button', { name: 'Request review of 1 change' }).click();
    await expectVisible(dialog.getByText('Give the request a title.'));
    await dialog.getByLabel('Title').fill('Longer payment timeout');
    await dialog.getByLabel('Description').fill('The provider is slow at night.');
    await dialog.getByRole('button', { name: 'Request review of 1 change' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The tray is empty, nothing changed yet, the request waits.
    expect(await editor.getByRole('button', { name: 'Request review…' }).count()).toBe(0);
    await expectValue(editor.getByLabel('Payments:TimeoutSeconds'), '30');
    expect(await stored('Payments:TimeoutSeconds')).toBe('30');
    const mine = request(editor, 'Longer payment timeout');
    await expectVisible(mine.getByText('open', { exact: true }));
    await expectVisible(mine.getByRole('button', { name: 'Withdraw' }));
    expect(await mine.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expectVisible(mine.getByText('you cannot approve your own request'));
    expect(await seriousA11yViolations(editor)).toEqual([]);

    await owner.reload();
    const theirs = request(owner, 'Longer payment timeout');
    await expectVisible(theirs.getByRole('row', { name: /Payments:TimeoutSeconds.*30.*45/ }));
    await expectVisible(theirs.getByText('by erin'));
    expect(await theirs.getByRole('button', { name: 'Apply', exact: true }).count()).toBe(0);
    await theirs.getByRole('button', { name: 'Approve' }).click();
    await expectVisible(theirs.getByText('1 of 1 approval (olga)'));
    await theirs.getByRole('button', { name: 'Apply', exact: true }).click();
    // Applied: the value changed, live in both windows, and the request left the open list.
    await expectValue(owner.getByLabel('Payments:TimeoutSeconds'), '45');
    await expectValue(editor.getByLabel('Payments:TimeoutSeconds'), '45');
    expect(await stored('Payments:TimeoutSeconds')).toBe('45');
    await expect.poll(() => theirs.count()).toBe(0);
    await owner.getByLabel('Status').selectOption('applied');
    await expectVisible(request(owner, 'Longer payment timeout').getByText('applied', { exact: true }));
  });

  it('a request whose entry changed since is refused as stale when applied, and says so', async () => {
    const editor = await ui.window();
    await signIn(editor, 'erin', password('erin'));
    await editor.goto(versionPath());
    for (const [value, title] of [
      ['5', 'Five retries'],
      ['9', 'Nine retries'],
    ] as const) {
      await editor.getByLabel('Payments:Retries').fill(value);
      await editor.getByRole('button', { name: 'Request review…' }).click();
      const dialog = editor.getByRole('dialog', { name: 'Request review' });
      await dialog.getByLabel('Title').fill(title);
      await dialog.getByRole('button', { name: 'Request review of 1 change' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await expectVisible(request(editor, title));
    }

    const owner = await ui.window();
    await signIn(owner, 'olga', password('olga'));
    await owner.goto(versionPath());
    for (const title of ['Five retries', 'Nine retries']) {
      await request(owner, title).getByRole('button', { name: 'Approve' }).click();
      await expectVisible(request(owner, title).getByRole('button', { name: 'Apply', exact: true }));
    }
    await request(owner, 'Five retries').getByRole('button', { name: 'Apply', exact: true }).click();
    await expectValue(owner.getByLabel('Payments:Retries'), '5');
    const late = request(owner, 'Nine retries');
    await late.getByRole('button', { name: 'Apply', exact: true }).click();
    const alert = late.getByRole('alert');
    await expectVisible(alert);
    expect(await alert.textContent()).toMatch(/Payments:Retries/);
    await expectVisible(late.getByText('stale', { exact: true }));
    expect(await stored('Payments:Retries')).toBe('5');

    // Its author bases it on the values now: open again, approvals dropped, reviewed and applied anew.
    await editor.reload();
    const mine = request(editor, 'Nine retries');
    await mine.getByRole('button', { name: 'Base on current values' }).click();
    await expectVisible(mine.getByText('open', { exact: true }));
    await expectVisible(mine.getByRole('row', { name: /Payments:Retries.*5.*9/ }));
    await owner.reload();
    await late.getByRole('button', { name: 'Approve' }).click();
    await late.getByRole('button', { name: 'Apply', exact: true }).click();
    await expectValue(owner.getByLabel('Payments:Retries'), '9');
    expect(await stored('Payments:Retries')).toBe('9');
  });

  it('an import into a protected version previews, then becomes a change request instead of applying', async () => {
    const editor = await ui.window();
    await signIn(editor, 'erin', password('erin'));
    await editor.goto(versionPath());
    await editor.getByRole('button', { name: 'Import' }).click();
    const dialog = editor.getByRole('dialog', { name: 'Import into 1.0.0' });
    await expectVisible(dialog.getByText('This version is protected'));
    await dialog.locator('input[type="file"]').setInputFiles({
      name: 'night.env',
      mimeType: 'text/plain',
      buffer: Buffer.from('Payments__TimeoutSeconds=50\n'),
    });
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('50'));
    expect(await dialog.getByRole('button', { name: /^Apply/ }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Request review…' }).click();
    const review = editor.getByRole('dialog', { name: 'Request review' });
    await expectVisible(review.getByRole('row', { name: /Payments:TimeoutSeconds.*45.*50/ }));
    await review.getByLabel('Title').fill('Night timeout from a file');
    await review.getByRole('button', { name: 'Request review of 1 change' }).click();
    await expectVisible(dialog.getByRole('status'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(request(editor, 'Night timeout from a file').getByText('open', { exact: true }));
    expect(await stored('Payments:TimeoutSeconds')).toBe('45');
  });

  it('restoring an earlier value from the history of a protected version, on a phone, requests review; withdraw and reject', async () => {
    const owner = await ui.window({ width: 390 });
    await signIn(owner, 'olga', password('olga'));
    await owner.goto(versionPath());
    await owner.getByRole('link', { name: 'Payments:TimeoutSeconds' }).click();
    const drawer = owner.getByRole('dialog', { name: 'Payments:TimeoutSeconds', exact: true });
    await expectVisible(drawer.getByRole('table', { name: 'History of Payments:TimeoutSeconds' }));
    // Details and deletion are refused on a protected version: disabled, with the reason.
    for (const name of ['Delete entry', 'Save details']) {
      const button = drawer.getByRole('button', { name });
      expect(await button.isDisabled()).toBe(true);
    }
    expect(await drawer.getByLabel('Display name').isDisabled()).toBe(true);
    expect(await description(owner, drawer.getByRole('button', { name: 'Delete entry' }))).toMatch(
      /^This version is protected: changes go through a change request/,
    );
    await drawer
      .getByRole('button', { name: /^Restore this value/ })
      .first()
      .click();
    const dialog = owner.getByRole('dialog', { name: 'Restore Payments:TimeoutSeconds' });
    await expectVisible(dialog.getByRole('table', { name: 'Changes of the preview' }).getByText('45'));
    expect(await dialog.getByRole('button', { name: 'Restore', exact: true }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Request review…' }).click();
    const review = owner.getByRole('dialog', { name: 'Request review' });
    await expectValue(review.getByLabel('Title'), 'Restore Payments:TimeoutSeconds');
    await review.getByRole('button', { name: 'Request review of 1 change' }).click();
    await expectVisible(dialog.getByRole('status'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await drawer.getByRole('button', { name: 'Close' }).click();
    const opened = request(owner, 'Restore Payments:TimeoutSeconds');
    await expectVisible(opened.getByRole('row', { name: /Payments:TimeoutSeconds.*45.*30/ }));
    expect(await stored('Payments:TimeoutSeconds')).toBe('45');

    // Its author withdraws it; another's is rejected. Both close and leave the default list.
    await opened.getByRole('button', { name: 'Withdraw' }).click();
    const fromFile = request(owner, 'Night timeout from a file');
    expect(await fromFile.getByRole('button', { name: 'Withdraw' }).count()).toBe(0);
    await fromFile.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => owner.getByRole('article').count()).toBe(0);
    await owner.getByLabel('Status').selectOption('all');
    await expectVisible(request(owner, 'Restore Payments:TimeoutSeconds').getByText('withdrawn', { exact: true }));
    await expectVisible(request(owner, 'Night timeout from a file').getByText('rejected', { exact: true }));
    expect(await stored('Payments:TimeoutSeconds')).toBe('45');
  });

  it('the author edits a request: new values drop its approvals, a new description keeps them', async () => {
    const editor = await ui.window();
    await signIn(editor, 'erin', password('erin'));
    await editor.goto(versionPath());
    await editor.getByLabel('Payments:Retries').fill('7');
    await editor.getByRole('button', { name: 'Request review…' }).click();
    const opening = editor.getByRole('dialog', { name: 'Request review' });
    await opening.getByLabel('Title').fill('Seven retries');
    await opening.getByRole('button', { name: 'Request review of 1 change' }).click();
    await opening.waitFor({ state: 'hidden' });

    const owner = await ui.window();
    await signIn(owner, 'olga', password('olga'));
    await owner.goto(versionPath());
    await request(owner, 'Seven retries').getByRole('button', { name: 'Approve' }).click();
    await expectVisible(request(owner, 'Seven retries').getByText('approved', { exact: true }));
    // Only its author edits it.
    expect(await request(owner, 'Seven retries').getByRole('button', { name: 'Edit' }).count()).toBe(0);

    await editor.reload();
    await request(editor, 'Seven retries').getByRole('button', { name: 'Edit' }).click();
    const dialog = editor.getByRole('dialog', { name: 'Edit Seven retries' });
    await expectVisible(dialog.getByText('New values drop the approvals it has'));
    await expectValue(dialog.getByLabel('Title'), 'Seven retries');
    await dialog.getByLabel('Title').fill('Eight retries');
    await dialog.getByLabel('Description').fill('Seven was not enough.');
    await dialog.getByLabel('Payments:Retries').fill('8');
    expect(await seriousA11yViolations(editor)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save request' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const edited = request(editor, 'Eight retries');
    await expectVisible(edited.getByText('open', { exact: true }));
    await expectVisible(edited.getByText('Seven was not enough.'));
    await expectVisible(edited.getByRole('row', { name: /Payments:Retries.*9.*8/ }));
    await expectVisible(edited.getByText(/0 of 1 approval/));
    expect(await stored('Payments:Retries')).toBe('9');

    // Approved again, then only its description edited: the approval stays.
    await owner.reload();
    await request(owner, 'Eight retries').getByRole('button', { name: 'Approve' }).click();
    await expectVisible(request(owner, 'Eight retries').getByText('approved', { exact: true }));
    await editor.reload();
    await edited.getByRole('button', { name: 'Edit' }).click();
    const again = editor.getByRole('dialog', { name: 'Edit Eight retries' });
    await again.getByLabel('Description').fill('Seven was not enough at night.');
    await again.getByRole('button', { name: 'Save request' }).click();
    await again.waitFor({ state: 'hidden' });
    await expectVisible(edited.getByText('Seven was not enough at night.'));
    await expectVisible(edited.getByText('approved', { exact: true }));
    await edited.getByRole('button', { name: 'Withdraw' }).click();
    await expect.poll(() => edited.count()).toBe(0);
  });

  it('has no serious or critical axe violations on the new screens, dark and on a phone', async () => {
    const found: string[] = [];
    for (const [colorScheme, width] of [
      ['dark', 1280],
      ['light', 390],
      ['dark', 390],
    ] as const) {
      const page = await ui.window({ colorScheme, width });
      await signIn(page, 'olga', password('olga'));
      for (const [name, path, ready] of [
        ['members', `/services/${ids.serviceId}/members`, 'Role of erin'],
        ['api keys', `/services/${ids.serviceId}/api-keys`, 'Scopes'],
        ['version', versionPath(), 'Status'],
        ['account', '/account', 'Expires in'],
      ] as const) {
        await page.goto(path);
        await expectVisible(page.getByLabel(ready).first());
        await expect.poll(() => page.getByLabel(/^Loading/).count()).toBe(0);
        for (const v of await seriousA11yViolations(page)) {
          found.push(`${colorScheme} ${width} ${name}: ${v.id} ${v.help} ${v.targets.join(', ')}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
