/**
 * Screenshots of the console's main screens, light and dark, at 1280 px and on a phone (390 × 844,
 * `*-phone-*.png`), for docs/ui/ (linked from the README).
 * Runs the real server on a temporary SQLite database with sample data and the built console
 * (`npm run build -w @realtime-config/web` first): `npm run screenshots -w @realtime-config/web`.
 */
import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { seedVersion, signIn, startConsole } from '../e2e/support/console.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'ui');
mkdirSync(out, { recursive: true });

// Loopback and unresolvable hosts allowed: the Validators shot lists one that is never asked.
const ui = await startConsole({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
try {
  const admin = await ui.server.admin();
  for (const [name, description] of [
    ['billing', 'Invoices and payment runs'],
    ['catalog', 'Product catalogue and search'],
    ['shipping', 'Carrier integration and labels'],
  ]) {
    await admin.post('/api/services', { name, description, contactEmail: `${name}@example.com` });
  }
  const ids = await seedVersion(admin, 'orders', '1.4.2', [
    {
      key: 'Payments:Provider',
      valueType: ValueType.STRING,
      rawValue: 'Stripe',
      groupName: 'Payments',
      groupDescription: 'Payment gateway',
      description: 'Gateway name',
    },
    {
      key: 'Payments:TimeoutSeconds',
      valueType: ValueType.NUMBER,
      rawValue: '30',
      groupName: 'Payments',
      schema: { minimum: 1, maximum: 300 },
    },
    {
      key: 'Payments:Mode',
      valueType: ValueType.ENUM,
      rawValue: 'Test',
      enumDefinition: 'Live|Test',
      groupName: 'Payments',
    },
    { key: 'Payments:Enabled', valueType: ValueType.BOOLEAN, rawValue: 'true', groupName: 'Payments' },
    { key: 'Payments:Window', valueType: ValueType.TIME_SPAN, rawValue: '00:05:00', groupName: 'Payments' },
    {
      key: 'Payments:StartsAt',
      valueType: ValueType.DATE_TIME,
      rawValue: '2026-05-01T09:30:00Z',
      groupName: 'Payments',
    },
    { key: 'Payments:Retries', valueType: ValueType.ARRAY, rawValue: '[1,2,5]', groupName: 'Payments' },
    {
      key: 'Payments:Limits',
      valueType: ValueType.JSON,
      rawValue: '{"max":100,"currency":"EUR"}',
      groupName: 'Payments',
    },
    {
      key: 'Cache:Ttl',
      valueType: ValueType.TIME_SPAN,
      rawValue: '00:10:00',
      groupName: 'Cache',
      groupDescription: 'Response cache',
    },
  ]);
  await admin.post(`/api/services/${ids.serviceId}/members`, { userId: 'admin' });
  for (const name of ['dana', 'erin']) {
    await admin.post('/api/users', { username: name, password: `${name}-has-a-long-password`, role: 'developer' });
  }
  await admin.post(`/api/services/${ids.serviceId}/members`, { userId: 'dana' });
  await admin.post(`/api/services/${ids.serviceId}/apikeys`, { name: 'orders-production' });
  const versionUrl = `/services/${ids.serviceId}/versions/${ids.versionId}`;
  const beforeChanges = new Date(Date.now() + 1000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  // A newer version to compare with, and a file to import.
  const next = await admin.post(`/api/configversions/${ids.serviceId}`, { versionLabel: '1.5.0' });
  const nextUrl = `/api/configentries/${ids.serviceId}/${next.body.id}`;
  await admin.post(nextUrl, { key: 'Payments:Provider', valueType: ValueType.STRING, rawValue: 'Adyen' });
  await admin.post(nextUrl, { key: 'Payments:TimeoutSeconds', valueType: ValueType.NUMBER, rawValue: '20' });
  await admin.post(nextUrl, { key: 'Payments:Region', valueType: ValueType.STRING, rawValue: 'eu-west-1' });
  const importFile = path.join(mkdtempSync(path.join(tmpdir(), 'rc-shots-')), 'orders.yaml');
  writeFileSync(importFile, 'Payments:\n  TimeoutSeconds: 75\n  Mode: Live\nCache:\n  Ttl: "00:30:00"\n');
  const p2 = (n: number) => String(n).padStart(2, '0');
  const local = (t: Date) =>
    `${t.getFullYear()}-${p2(t.getMonth() + 1)}-${p2(t.getDate())}T${p2(t.getHours())}:${p2(t.getMinutes())}:${p2(t.getSeconds())}`;

  const shot = async (page: Page, name: string, scheme: string, phone: boolean) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    // Dialogs and drawers open with a short transition: shoot them still.
    await page.waitForTimeout(400);
    const file = `${name}${phone ? '-phone' : ''}-${scheme}.png`;
    await page.screenshot({ path: path.join(out, file), animations: 'disabled' });
  };
  for (const phone of [false, true]) {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await ui.window({ colorScheme: scheme, reducedMotion: true, width: phone ? 390 : 1280 });
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      const take = (name: string) => shot(page, name, scheme, phone);
      await page.goto('/sign-in');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await take('sign-in');
      await signIn(page, 'admin', 'admin-password-for-tests');
      await page.getByRole('link', { name: 'orders' }).waitFor();
      await take('services');
      await page.goto(`/services/${ids.serviceId}/versions`);
      await page.getByRole('link', { name: '1.4.2' }).waitFor();
      await take('service');
      await page.getByRole('button', { name: 'New version' }).click();
      await page.getByLabel('Version label').fill('1.6.0');
      await page.getByLabel('Start from').selectOption({ label: 'A copy of 1.5.0' });
      await take('new-version');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.goto(versionUrl);
      await page.getByLabel('Payments:Limits').waitFor();
      await page.getByLabel('Payments:TimeoutSeconds').fill(scheme === 'light' ? '45' : '50');
      await page.getByLabel('Payments:Mode').selectOption('Live');
      await page.getByLabel('Payments:Window').fill('25:00:00');
      // The page keeps the value being typed above the tray (on a phone the tray's list starts folded).
      await page.waitForTimeout(400);
      await page.screenshot({
        path: path.join(out, `version-pending${phone ? '-phone' : ''}-${scheme}.png`),
        animations: 'disabled',
      });
      await page.getByLabel('Payments:Window').fill('00:05:00');
      const stored = (await admin.get(`/api/configentries/${ids.serviceId}/${ids.versionId}`)).body as {
        id: string;
        key: string;
        generation: number;
      }[];
      const timeout = stored.find((e) => e.key === 'Payments:TimeoutSeconds');
      await admin.put(`/api/configentries/${ids.serviceId}/${ids.versionId}/set`, [
        { id: timeout?.id, rawValue: scheme === 'light' ? '60' : '90', generation: timeout?.generation },
      ]);
      await page.getByText('Changed elsewhere', { exact: true }).waitFor();
      await page.getByRole('button', { name: /^Save/ }).click();
      await page
        .getByRole('dialog', { name: /Conflict/ })
        .getByRole('button', { name: 'Keep mine' })
        .waitFor();
      await take('conflict');
      await page.getByRole('button', { name: 'Keep mine' }).click();
      await page.getByRole('button', { name: /^Save/ }).click();
      await page.getByText(/^Saved/).waitFor();
      // The message goes by itself after a few seconds; the next shot waits for it.
      await page.getByText(/^Saved/).waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'New entry' }).click();
      const entryDialog = page.getByRole('dialog', { name: 'New entry' });
      await entryDialog.getByLabel('Key').fill('Payments:Currency');
      await entryDialog.getByLabel('Value type').selectOption('Enum');
      await entryDialog.getByLabel('Allowed values').fill('EUR|USD|GBP');
      await entryDialog.getByRole('combobox', { name: 'Value', exact: true }).selectOption('EUR');
      await take('new-entry');
      await entryDialog.getByRole('button', { name: 'Cancel' }).click();
      await page.goto(`/services/${ids.serviceId}/audit`);
      await page.getByRole('table', { name: 'Audit log' }).waitFor();
      await take('audit-log');
      await page.getByLabel('Version').selectOption({ label: '1.4.2' });
      if (phone) await page.getByRole('button', { name: /^More filters/ }).click();
      await page.getByLabel('Action').selectOption('ValueSet');
      await page.getByRole('table', { name: 'Audit log' }).getByText('Value set').first().waitFor();
      await take('audit-log-filtered');
      await page.goto('/users');
      await page.getByRole('table', { name: 'Users' }).waitFor();
      await take('users');
      await page.goto(`/services/${ids.serviceId}/members`);
      await page.getByRole('table', { name: 'Members' }).waitFor();
      await take('members');
      await page.goto(`/services/${ids.serviceId}/api-keys`);
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      await take('api-keys');
      // Shown, then removed: it would refuse the values this script saves next (its host does not resolve).
      const validator = await admin.post(`/api/services/${ids.serviceId}/validators`, {
        url: 'https://ci.example.com/realtime-config/validate',
        description: 'Release policy',
      });
      await page.goto(`/services/${ids.serviceId}/validators`);
      await page.getByRole('table', { name: 'Validators' }).waitFor();
      await take('validators');
      await admin.delete(`/api/services/${ids.serviceId}/validators/${validator.body.id}`);
      await page.goto('/account');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await take('account');

      // History, restore, compare and import (docs/history-and-transfer.md).
      await page.goto(versionUrl);
      await page.getByRole('link', { name: 'Payments:TimeoutSeconds' }).click();
      await page.getByRole('table', { name: 'History of Payments:TimeoutSeconds' }).waitFor();
      await take('entry-drawer');
      await page
        .getByRole('button', { name: /^Restore this value/ })
        .first()
        .click();
      await page.getByRole('table', { name: 'Changes of the preview' }).waitFor();
      await take('entry-history');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.goto(versionUrl);
      await page.getByRole('button', { name: 'Restore version to…' }).click();
      await page.getByLabel('Restore to').fill(local(beforeChanges));
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByRole('table', { name: 'Changes of the preview' }).waitFor();
      await take('restore-version');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Import' }).click();
      await page.locator('input[type="file"]').setInputFiles(importFile);
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByRole('table', { name: 'Changes of the preview' }).waitFor();
      await take('import');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.goto(`/services/${ids.serviceId}/compare?base=${ids.versionId}&target=${next.body.id}`);
      await page.getByRole('checkbox', { name: 'Copy Payments:TimeoutSeconds' }).check();
      await take('compare');
      await page.context().close();
    }
  }

  // Rollouts (docs/rollouts.md), last: a rollout holds its entries, and its records would show in the
  // audit log shots. Eight instances in two regions; each shot rolls back what it started.
  const grpcClient = new GrpcTestClient(`127.0.0.1:${ui.server.port}`);
  const instances = Array.from({ length: 8 }, (_, i) => {
    const metadata = new grpc.Metadata();
    metadata.set('x-rc-instance-id', `orders-${i + 1}`);
    metadata.set('x-rc-labels', `region=${i % 2 === 0 ? 'eu' : 'us'}`);
    return grpcClient.subscribe({ serviceId: ids.serviceId, versionId: ids.versionId }, metadata);
  });
  await Promise.all(instances.map((s) => s.until(() => s.events.length > 0)));
  for (const phone of [false, true]) {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await ui.window({ colorScheme: scheme, reducedMotion: true, width: phone ? 390 : 1280 });
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      await signIn(page, 'admin', 'admin-password-for-tests');
      await page.goto(versionUrl);
      // By role: the rollout panel's article and table are named by the keys too.
      await page.getByRole('spinbutton', { name: 'Payments:TimeoutSeconds' }).fill(scheme === 'light' ? '40' : '35');
      await page.getByRole('textbox', { name: 'Payments:Provider', exact: true }).fill('Adyen');
      await page.getByRole('button', { name: 'Roll out…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Roll out 2 changes' });
      await dialog.getByRole('textbox', { name: 'Step time' }).fill('10m');
      const labels = dialog.getByRole('combobox', { name: 'Labels to match' });
      await labels.fill('region=eu');
      await labels.press('Enter');
      await shot(page, 'rollout-dialog', scheme, phone);
      await dialog.getByRole('button', { name: 'Start rollout' }).click();
      const panel = page.getByRole('region', { name: 'Rollouts' });
      await panel.getByText('Running', { exact: true }).waitFor();
      await page.getByRole('region', { name: 'Instances' }).getByRole('columnheader', { name: 'Rollout' }).waitFor();
      // The panel's heading just below the page's header.
      await panel.getByRole('heading', { name: 'Rollouts' }).evaluate((h) => {
        h.scrollIntoView();
        window.scrollBy(0, -((document.querySelector('header')?.getBoundingClientRect().height ?? 60) + 16));
      });
      await page.waitForTimeout(400);
      await page.screenshot({
        path: path.join(out, `rollouts${phone ? '-phone' : ''}-${scheme}.png`),
        animations: 'disabled',
      });
      const running = (await admin.get(`/api/configversions/${ids.serviceId}/${ids.versionId}/rollouts?status=running`))
        .body as { id: string }[];
      for (const r of running) {
        await admin.post(`/api/configversions/${ids.serviceId}/${ids.versionId}/rollouts/${r.id}/rollback`);
      }
      await page.context().close();
    }
  }
  for (const s of instances) s.cancel();
  grpcClient.close();
  console.log(`screenshots in ${out}`);
} finally {
  await ui.close();
}
