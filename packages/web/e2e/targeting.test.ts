import { ValueType } from '@realtime-config/protocol';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { seriousA11yViolations } from './support/axe.js';
import { expectVisible, seedVersion, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';

const KEY = 'Http:TimeoutSeconds';

interface StoredOverride {
  readonly labels: Record<string, string>;
  readonly rawValue: string | null;
}

/**
 * Overrides by label in the console (docs/targeting.md): set in the entry's details with the entry's
 * own editor and schema check, reordered and removed, marked on the version page, kept current when
 * they change elsewhere, and `Resolve for labels…` says what an instance gets and from where.
 */
describe('targeting in the console', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let ids: Awaited<ReturnType<typeof seedVersion>>;

  const entryId = () => ids.entries[KEY]?.id ?? '';
  const stored = async () => {
    const res = await admin.get(`/api/configentries/${ids.serviceId}/${ids.versionId}`);
    return (res.body as { key: string; generation: number; overrides: StoredOverride[] }[]).find((e) => e.key === KEY)!;
  };
  const addOverride = async (drawer: Locator, n: number, label: string, value: string) => {
    await drawer.getByRole('button', { name: 'Add override' }).click();
    const labels = drawer.getByRole('combobox', { name: `Override ${n} labels` });
    await labels.fill(label);
    await labels.press('Enter');
    await drawer.getByRole('spinbutton', { name: `Override ${n} value` }).fill(value);
  };
  const resolved = async (labels: string) => {
    const dialog = page.getByRole('dialog', { name: 'Resolve for labels' });
    await dialog.getByRole('textbox', { name: 'Labels' }).fill(labels);
    await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
    const row = dialog.getByRole('table', { name: 'Resolved values' }).getByRole('row', { name: new RegExp(KEY) });
    await expectVisible(row);
    return row.innerText();
  };

  beforeAll(async () => {
    ui = await startConsole();
    admin = await ui.server.admin();
    ids = await seedVersion(admin, 'gateway', '1.0.0', [
      { key: KEY, valueType: ValueType.NUMBER, rawValue: '30', schema: { minimum: 1, maximum: 300 } },
      { key: 'Http:Retries', valueType: ValueType.NUMBER, rawValue: '3' },
    ]);
    page = await ui.window({ reducedMotion: true });
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => ui?.close());

  it('adds, reorders and removes overrides in the details, marks them, and resolves for labels', async () => {
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await page.getByRole('link', { name: KEY }).click();
    const drawer = page.getByRole('dialog', { name: KEY });
    await expectVisible(drawer.getByText(/The first match from the top wins/));

    // Two overrides; a value that breaks the entry's schema is marked before Save, like the entry's value.
    await addOverride(drawer, 1, 'region=eu', '45');
    await addOverride(drawer, 2, 'region=ap', '3000');
    await expectVisible(drawer.getByText('must be <= 300'));
    const save = drawer.getByRole('button', { name: 'Save overrides' });
    expect(await save.isDisabled()).toBe(true);
    await drawer.getByRole('spinbutton', { name: 'Override 2 value' }).fill('50');
    await save.click();
    await expectVisible(drawer.getByText('Overrides saved.'));
    // The REST answer of the entry carries them: no gRPC client or SDK needed to see them.
    expect((await stored()).overrides).toEqual([
      { labels: { region: 'eu' }, rawValue: '45' },
      { labels: { region: 'ap' }, rawValue: '50' },
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Reorder: the second first (the first match wins).
    await drawer.getByRole('button', { name: 'Move override 2 up' }).click();
    await save.click();
    await expectVisible(drawer.getByText('Overrides saved.'));
    expect((await stored()).overrides.map((o) => o.labels.region)).toEqual(['ap', 'eu']);
    await drawer.getByRole('button', { name: 'Close' }).click();
    await expectVisible(page.getByText('2 overrides', { exact: true }));

    // Remove one.
    await page.getByRole('link', { name: KEY }).click();
    await drawer.getByRole('button', { name: 'Remove override 1' }).click();
    await save.click();
    await expectVisible(drawer.getByText('Overrides saved.'));
    expect((await stored()).overrides).toEqual([{ labels: { region: 'eu' }, rawValue: '45' }]);
    await drawer.getByRole('button', { name: 'Close' }).click();
    await expectVisible(page.getByText('1 override', { exact: true }));

    // Changed elsewhere (another window, here the API): the page shows it without a reload.
    const current = await stored();
    const put = await admin.put(`/api/configentries/${ids.serviceId}/${ids.versionId}/${entryId()}/overrides`, {
      overrides: [...current.overrides, { labels: { tier: 'gold' }, rawValue: '90' }],
      generation: current.generation,
    });
    expect(put.status).toBe(200);
    await expectVisible(page.getByText('2 overrides', { exact: true }));

    // What an instance gets: the override's value for region=eu, the entry's value for region=us.
    await page.getByRole('button', { name: 'Resolve for labels…' }).click();
    expect(await resolved('region=eu')).toMatch(/45\s+override #1/);
    expect(await resolved('region=us')).toMatch(/30\s+value/);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
