import { ValueType } from '@realtime-config/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { startValidatorReceiver, type ValidatorReceiver } from '@realtime-config/test-support/validator-receiver';
import { seriousA11yViolations } from './support/axe.js';
import {
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

const KEY = 'Http:TimeoutSeconds';

/**
 * An owner gives a value its rules in the console: a schema in the entry's details (checked as typed,
 * by the server's own checker in the browser), a value that breaks it marked before Save, and a
 * validator whose refusal is shown where the change was saved, until it is disabled.
 */
describe('validation in the console', () => {
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let receiver: ValidatorReceiver;
  let ids: Awaited<ReturnType<typeof seedVersion>>;

  const stored = async () => (await storedEntries(admin, ids.serviceId, ids.versionId))[KEY]!;
  const storedSchema = async () => ((await stored()) as unknown as { schema: unknown }).schema;

  beforeAll(async () => {
    ui = await startConsole({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await ui.server.admin();
    receiver = await startValidatorReceiver(() => ({ status: 422, body: 'policy: no Friday deploys' }));
    ids = await seedVersion(admin, 'gateway', '1.0.0', [{ key: KEY, valueType: ValueType.NUMBER, rawValue: '30' }]);
    page = await ui.window({ reducedMotion: true });
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => {
    await receiver?.close();
    await ui?.close();
  });

  it('edits a schema, marks a value that breaks it before Save, shows a validator refusal until it is disabled', async () => {
    // The schema checker's worker may compile (eval) and nothing else; the page itself may not.
    const workerPolicy = page.waitForResponse((r) => /\/assets\/schema-worker-[\w-]+\.js$/.test(r.url()));
    // The schema, in the entry's details: a text that is no schema is marked and not sent.
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    await page.getByRole('link', { name: KEY }).click();
    const drawer = page.getByRole('dialog', { name: KEY });
    const schema = drawer.getByRole('textbox', { name: 'Schema' });
    await schema.fill('{"minimum": "one"}');
    expect((await workerPolicy).headers()['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-eval'",
    );
    await expectVisible(drawer.getByText(/^The schema is not a valid JSON Schema \(draft 2020-12\)/));
    await drawer.getByRole('button', { name: 'Save details' }).click();
    // A schema the stored value (30) breaks: the server refuses it and the alert names the rule.
    await schema.fill('{"maximum": 10}');
    await drawer.getByRole('button', { name: 'Save details' }).click();
    await expectVisible(drawer.getByRole('alert').getByText(`${KEY}: must be <= 10`));
    expect(await storedSchema()).toBeNull();
    await schema.fill('{"minimum":1,"maximum":300}');
    await drawer.getByRole('button', { name: 'Save details' }).click();
    await expectVisible(drawer.getByText('Details saved.'));
    expect(await storedSchema()).toEqual({ minimum: 1, maximum: 300 });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await drawer.getByRole('button', { name: 'Close' }).click();

    // A value that breaks the schema is marked at its field with the rule, and cannot be saved.
    const field = page.getByRole('spinbutton', { name: KEY });
    await field.fill('3000');
    await expectVisible(page.getByText('must be <= 300').first());
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save 1 change' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Discard all' }).click();

    // A validator on loopback that refuses every change.
    await page.getByRole('link', { name: 'gateway' }).click();
    await page.getByRole('link', { name: 'Validators' }).click();
    await expectVisible(page.getByRole('heading', { name: 'No validators yet' }));
    await page.getByRole('button', { name: 'New validator' }).click();
    const dialog = page.getByRole('dialog', { name: 'New validator' });
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByLabel('Description').fill('Release policy');
    await dialog.getByRole('button', { name: 'Create validator' }).click();
    const created = page.getByRole('dialog', { name: 'Validator created' });
    expect((await created.getByLabel('Validator secret').textContent())!.trim()).toMatch(/^whsec_/);
    await created.getByRole('button', { name: 'Done' }).click();
    const validators = page.getByRole('table', { name: 'Validators' });
    await expectVisible(validators.getByText('Enabled'));
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A valid value: the validator's refusal is shown where it was saved, and nothing is written.
    const save45 = async () => {
      await page.getByRole('link', { name: 'Versions' }).click();
      await page.getByRole('link', { name: '1.0.0' }).click();
      await page.getByRole('spinbutton', { name: KEY }).fill('45');
      await page.getByRole('button', { name: 'Save 1 change' }).click();
    };
    await save45();
    const tray = page.getByRole('region', { name: '1 pending change' });
    await expectVisible(tray.getByRole('alert').getByText('Validator: policy: no Friday deploys'));
    expect(receiver.calls).toHaveLength(1);
    expect((await stored()).rawValue).toBe('30');
    await page.getByRole('button', { name: 'Discard all' }).click();

    // Disabled (after a confirmation), the validator is not asked: the value is saved.
    await page.getByRole('link', { name: 'gateway' }).click();
    await page.getByRole('link', { name: 'Validators' }).click();
    await validators.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByRole('dialog', { name: 'Disable this validator?' })
      .getByRole('button', { name: 'Disable validator' })
      .click();
    await expectVisible(validators.getByText('Disabled'));
    await save45();
    await expectVisible(page.getByText(`Saved ${KEY}`));
    expect((await stored()).rawValue).toBe('45');
    expect(receiver.calls).toHaveLength(1);
  });
});
