import { ValueType } from '@realtime-config/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { expectVisible, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';
import { pageProblems } from './support/page-checks.js';
import { registerVersion } from './support/register-version.js';

const WIDTHS = [390, 1280] as const;

/** Everything a new user sees, seeded through the API: one service with a little of everything. */
async function seed(admin: ApiClient, baseUrl: string) {
  const serviceId = (
    await admin.post('/api/services', {
      name: 'orders',
      description: 'Orders and payments',
      contactEmail: 'o@example.com',
    })
  ).body.id as string;
  // Registered the way the SDK does, so the entry drawer says who made each entry.
  const versionId = await registerVersion(
    baseUrl,
    serviceId,
    '1.4.2',
    new Map([
      [
        'Payments',
        [
          { key: 'Payments:TimeoutSeconds', valueType: ValueType.NUMBER, value: '30' },
          { key: 'Payments:Mode', valueType: ValueType.ENUM, value: 'Test', enumValues: 'Live|Test' },
          { key: 'Payments:Window', valueType: ValueType.TIME_SPAN, value: '00:05:00' },
        ],
      ],
    ]),
  );
  const entries = `/api/configentries/${serviceId}/${versionId}`;
  const secret = await admin.post(entries, {
    key: 'Payments:ApiSecret',
    valueType: ValueType.STRING,
    rawValue: 'sk_live_walk',
    isSecret: true,
    groupName: 'Payments',
  });
  expect(secret.status, secret.text).toBe(201);
  // Overrides by label: the badge on the version page, the list in the entry drawer, Resolve for labels….
  const registered = (await admin.get(entries)).body as { id: string; key: string; generation: number }[];
  const timeoutEntry = registered.find((e) => e.key === 'Payments:TimeoutSeconds')!;
  const overrides = await admin.put(`${entries}/${timeoutEntry.id}/overrides`, {
    overrides: [
      { labels: { region: 'eu', tier: 'gold' }, rawValue: '60' },
      { labels: { region: 'eu' }, rawValue: '45' },
    ],
    generation: timeoutEntry.generation,
  });
  expect(overrides.status, overrides.text).toBe(200);
  const protectedId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.5.0' })).body
    .id as string;
  const timeout = (
    await admin.post(`/api/configentries/${serviceId}/${protectedId}`, {
      key: 'Payments:TimeoutSeconds',
      valueType: ValueType.NUMBER,
      rawValue: '20',
    })
  ).body as { id: string; generation: number };
  await admin.put(`/api/configversions/${serviceId}/${protectedId}`, { versionLabel: '1.5.0', protected: true });
  await admin.post(`/api/configversions/${serviceId}/${protectedId}/changerequests`, {
    title: 'Longer timeout',
    description: 'Slow gateway',
    changes: [{ id: timeout.id, rawValue: '45', generation: timeout.generation }],
  });
  await admin.post('/api/users', { username: 'dana', password: 'dana-has-a-long-password', role: 'developer' });
  await admin.post(`/api/services/${serviceId}/members`, { userId: 'dana', role: 'editor' });
  await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'orders-production' });
  await admin.post(`/api/services/${serviceId}/webhooks`, { url: 'http://127.0.0.1:9/hook', description: 'chat' });
  // Disabled: nothing answers on port 9, and an enabled validator would refuse the values saved below.
  const validator = await admin.post(`/api/services/${serviceId}/validators`, {
    url: 'http://127.0.0.1:9/validate',
    description: 'Release policy',
  });
  expect(validator.status, validator.text).toBe(201);
  await admin.put(`/api/services/${serviceId}/validators/${validator.body.id}`, { enabled: false });
  await admin.post('/api/auth/tokens', { name: 'laptop', expiresAt: null });
  return { serviceId, versionId, protectedId, secretId: secret.body.id as string };
}

/**
 * A new user's first hour, every console page at a phone's width and a laptop's: no name from inside
 * the code shown as text, no notice over a button, nothing wider than the screen or cut off.
 */
describe('every console page, at 390 and 1280 px', () => {
  let ui: ConsoleUnderTest;
  let ids: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    ui = await startConsole({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
    ids = await seed(await ui.server.admin(), ui.server.baseUrl);
  });
  afterAll(async () => ui?.close());

  /** Opens a page and waits until it shows its data (its heading, no spinner). */
  async function open(page: Page, url: string): Promise<void> {
    await page.goto(url);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await expect.poll(() => page.getByLabel(/^Loading/).count()).toBe(0);
  }

  for (const width of WIDTHS) {
    it(`shows every page in the user's words, within the screen, at ${width} px`, async () => {
      const page = await ui.window({ width, reducedMotion: true });
      const found: string[] = [];
      const check = async (where: string) => {
        for (const problem of await pageProblems(page)) found.push(`${width} px, ${where}: ${problem}`);
      };
      const s = `/services/${ids.serviceId}`;

      await page.goto('/sign-in');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await check('sign-in');
      await signIn(page, 'admin', ADMIN_PASSWORD);

      for (const [where, url] of [
        ['services', '/services'],
        ['versions', `${s}/versions`],
        ['members', `${s}/members`],
        ['API keys', `${s}/api-keys`],
        ['webhooks', `${s}/webhooks`],
        ['validators', `${s}/validators`],
        ['audit log', `${s}/audit`],
        ['protected version with a change request', `${s}/versions/${ids.protectedId}`],
        ['compare', `${s}/compare?base=${ids.versionId}&target=${ids.protectedId}`],
        ['users', '/users'],
        ['account', '/account'],
      ] as const) {
        await open(page, url);
        await check(where);
      }

      // The audit log shows a secret's creation as the API answers it: redacted, with its fingerprint.
      await open(page, `${s}/audit?entityType=Entry&action=Created`);
      const created = page.getByRole('row').filter({ hasText: 'Payments:ApiSecret' });
      await expectVisible(created.getByText(/^value: •••••• \(secret, fingerprint [0-9a-f]{16}\)$/));
      await check('audit log, filtered');

      // Saving two values: the note says so in the page, over none of its buttons.
      await open(page, `${s}/versions/${ids.versionId}`);
      await page.getByLabel('Payments:TimeoutSeconds').fill(String(width));
      await page.getByLabel('Payments:Window').fill(width === 390 ? '00:06:00' : '00:07:00');
      await page.getByRole('button', { name: 'Save 2 changes' }).click();
      await expectVisible(page.getByText('Saved 2 values'));
      await page.evaluate(() => window.scrollTo(0, 0));
      await check('version, just saved');

      await page.getByRole('link', { name: 'Payments:TimeoutSeconds' }).click();
      await expectVisible(page.getByRole('table', { name: 'History of Payments:TimeoutSeconds' }));
      await expectVisible(page.getByRole('dialog').getByText('registered by the application'));
      await check('entry drawer');
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      for (const [button, dialog] of [
        ['New entry', 'New entry'],
        ['Edit version', 'Edit version 1.4.2'],
      ] as const) {
        await page.getByRole('button', { name: button }).click();
        const opened = page.getByRole('dialog', { name: dialog });
        await expectVisible(opened);
        await check(`dialog ${dialog}`);
        await opened.getByRole('button', { name: 'Cancel' }).click();
        await opened.waitFor({ state: 'hidden' });
      }
      await page.getByRole('button', { name: 'Resolve for labels…' }).click();
      const resolving = page.getByRole('dialog', { name: 'Resolve for labels' });
      await resolving.getByRole('textbox', { name: 'Labels' }).fill('region=eu, tier=gold');
      await resolving.getByRole('button', { name: 'Resolve', exact: true }).click();
      await expectVisible(resolving.getByRole('table', { name: 'Resolved values' }).getByText('override #1'));
      await check('dialog Resolve for labels');
      await resolving.getByRole('button', { name: 'Close' }).click();
      await resolving.waitFor({ state: 'hidden' });
      await open(page, '/users');
      await page.getByRole('button', { name: 'New user' }).click();
      await expectVisible(page.getByRole('dialog', { name: 'New user' }).getByLabel('Role'));
      await check('dialog New user');

      expect(found).toEqual([]);
      await page.context().close();
    });
  }

  it('names an exported file by its service and version', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await open(page, `/services/${ids.serviceId}/versions/${ids.versionId}`);
    await page.getByRole('button', { name: 'Export' }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Export as JSON' }).click();
    expect((await downloading).suggestedFilename()).toBe('orders-1.4.2.json');
    await page.context().close();
  });
});
