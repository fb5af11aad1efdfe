import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { movableClock } from '@realtime-config/test-support/movable-clock';
import { ADMIN_PASSWORD, type ApiClient } from '@realtime-config/test-support/test-server';
import { seriousA11yViolations } from './support/axe.js';
import { pageProblems } from './support/page-checks.js';
import {
  expectValue,
  expectVisible,
  seedVersion,
  signIn,
  startConsole,
  storedEntries,
  type ConsoleUnderTest,
} from './support/console.js';

const KEY = 'Checkout:TimeoutSeconds';
/** Enough instances that at 50 % some are in and some out, whatever the rollout's id. */
/** How long a wait for the page to follow the server may take (the machine is shared). */
const PATIENCE = { timeout: 30_000 };
const INSTANCES = Array.from({ length: 16 }, (_, i) => `pod-${String(i + 1).padStart(2, '0')}`);

/**
 * Rollouts in the console (docs/rollouts.md): `Roll out…` from the tray, the Rollouts panel following
 * the steps (the server's clock moved by the test, never waited for), the Instances table marking who
 * is in, Pause, Resume, Roll back with its reason, and Promote to completion.
 */
describe('rollouts in the console', () => {
  const clock = movableClock();
  let ui: ConsoleUnderTest;
  let admin: ApiClient;
  let page: Page;
  let ids: Awaited<ReturnType<typeof seedVersion>>;
  let grpcClient: GrpcTestClient;
  const streams: Subscription[] = [];

  beforeAll(async () => {
    ui = await startConsole({ args: ['--Rollouts:TickMilliseconds=20'], deps: { clock } });
    admin = await ui.server.admin();
    ids = await seedVersion(admin, 'checkout', '2.0.0', [
      { key: KEY, valueType: ValueType.NUMBER, rawValue: '30', groupName: 'Checkout' },
      { key: 'Checkout:Retries', valueType: ValueType.NUMBER, rawValue: '3', groupName: 'Checkout' },
    ]);
    grpcClient = new GrpcTestClient(`127.0.0.1:${ui.server.port}`);
    for (const id of INSTANCES) {
      const metadata = new grpc.Metadata();
      metadata.set('x-rc-instance-id', id);
      streams.push(grpcClient.subscribe({ serviceId: ids.serviceId, versionId: ids.versionId }, metadata));
    }
    await Promise.all(streams.map((s) => s.until(() => s.events.length > 0)));
    page = await ui.window({ reducedMotion: true });
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => {
    for (const s of streams) s.cancel();
    grpcClient?.close();
    await ui?.close();
  });

  /** Each instance's Rollout cell as the console shows it, by instance id. */
  const shownMembership = (table: Locator) =>
    table.locator('tbody tr').evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => {
          const cells = (row as HTMLTableRowElement).cells;
          return [cells[0]?.querySelector('p')?.textContent, cells[cells.length - 1]?.textContent];
        }),
      ),
    );
  /** The same as the server answers it. */
  const serverMembership = async () => {
    const res = await admin.get(`/api/configversions/${ids.serviceId}/${ids.versionId}/instances`);
    const instances = res.body.instances as { instanceId: string; rollout: { in: boolean } | null }[];
    return Object.fromEntries(instances.map((i) => [i.instanceId, i.rollout?.in ? 'In' : 'Out']));
  };
  const rollOut = async (value: string) => {
    await page.getByRole('spinbutton', { name: KEY }).fill(value);
    await page.getByRole('button', { name: 'Roll out…' }).click();
    return page.getByRole('dialog', { name: 'Roll out 1 change' });
  };

  it('rolls a change out from the tray, follows its steps and instances, pauses, resumes and rolls back', async () => {
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    const instances = page.getByRole('region', { name: 'Instances' });
    await expectVisible(instances.getByText(`${INSTANCES.length} of ${INSTANCES.length} up to date`));

    const dialog = await rollOut('45');
    await expectValue(dialog.getByRole('textbox', { name: 'Steps' }), '10, 50, 100');
    await expectValue(dialog.getByRole('textbox', { name: 'Step time' }), '60s');
    await expectValue(dialog.getByRole('textbox', { name: 'Bake time' }), '5m');
    await expectValue(dialog.getByRole('textbox', { name: 'Rollback share' }), '20');
    await expectVisible(dialog.getByRole('table', { name: 'Changes to roll out' }).getByText('45'));
    await dialog.getByRole('radio', { name: 'At a time' }).check();
    await expectVisible(dialog.getByLabel('Start at'));
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('radio', { name: 'Now' }).check();

    // A bad setting is named on its field and nothing is sent.
    await dialog.getByRole('textbox', { name: 'Steps' }).fill('10, 50');
    await dialog.getByRole('button', { name: 'Start rollout' }).click();
    await expectVisible(dialog.getByText('The last step is 100'));
    expect((await admin.get(`/api/configversions/${ids.serviceId}/${ids.versionId}/rollouts`)).body).toEqual([]);
    await dialog.getByRole('textbox', { name: 'Steps' }).fill('10, 50, 100');
    // An hour between steps: the test moves the server's clock, the machine's time never steps it.
    await dialog.getByRole('textbox', { name: 'Step time' }).fill('1h');
    await expectVisible(dialog.getByText(/Now: 1 h\./));
    await dialog.getByRole('button', { name: 'Start rollout' }).click();
    await expectVisible(page.getByRole('status').getByText(`Rollout of ${KEY} started`));
    expect(await page.getByRole('region', { name: /pending change/ }).count()).toBe(0);

    const rollout = page.getByRole('region', { name: 'Rollouts' }).getByRole('article').first();
    await expectVisible(rollout.getByText('Running', { exact: true }));
    const current = rollout.getByRole('list', { name: 'Steps' }).locator('[aria-current="step"]');
    expect(await current.textContent()).toBe('10 % (now)');
    await expectVisible(rollout.getByRole('table').getByText('45'));
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The entry is held: its badge, its editor disabled with the reason.
    await expectVisible(page.getByText('Rolling out', { exact: true }));
    expect(await page.getByRole('spinbutton', { name: KEY }).isDisabled()).toBe(true);
    await expectVisible(page.getByText(/A rollout is bringing a new value to the instances/));

    // Who is in, as the server counts it, at 10 % and then at 50 %.
    const table = instances.getByRole('table');
    await expectVisible(table.getByRole('columnheader', { name: 'Rollout' }));
    await expect.poll(() => shownMembership(table), PATIENCE).toEqual(await serverMembership());
    clock.advance(3600);
    await expect.poll(() => current.textContent(), PATIENCE).toBe('50 % (now)');
    const atHalf = await serverMembership();
    expect(new Set(Object.values(atHalf))).toEqual(new Set(['In', 'Out']));
    await expect.poll(() => shownMembership(table), PATIENCE).toEqual(atHalf);
    expect(await pageProblems(page)).toEqual([]);

    await rollout.getByRole('button', { name: 'Pause' }).click();
    await expectVisible(rollout.getByText('Paused', { exact: true }));
    await rollout.getByRole('button', { name: 'Resume' }).click();
    await expectVisible(rollout.getByText('Running', { exact: true }));

    await rollout.getByRole('button', { name: 'Roll back…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Roll back this rollout?' });
    await confirm.getByRole('button', { name: 'Roll back', exact: true }).click();
    await expectVisible(rollout.getByText('Rolled back', { exact: true }));
    await expectVisible(rollout.getByText(/^Reason: rolled back by /));
    // The entry is free again with its old value; the Instances table drops the column.
    await expect.poll(() => page.getByRole('spinbutton', { name: KEY }).isDisabled(), PATIENCE).toBe(false);
    await expectValue(page.getByRole('spinbutton', { name: KEY }), '30');
    expect(await page.getByText('Rolling out', { exact: true }).count()).toBe(0);
    await expect.poll(() => table.getByRole('columnheader', { name: 'Rollout' }).count(), PATIENCE).toBe(0);
    expect(await pageProblems(page)).toEqual([]);
  });

  it('promotes a second rollout to completion: the entry shows its new value', async () => {
    const dialog = await rollOut('60');
    await dialog.getByRole('button', { name: 'Start rollout' }).click();
    const rollout = page.getByRole('region', { name: 'Rollouts' }).getByRole('article').first();
    await expectVisible(rollout.getByText('Running', { exact: true }));
    await rollout.getByRole('button', { name: 'Promote…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Promote this rollout?' });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Promote', exact: true }).click();
    await expectVisible(rollout.getByText('Completed', { exact: true }));
    await expectVisible(rollout.getByText(/^Reason: promoted by /));
    await expectValue(page.getByRole('spinbutton', { name: KEY }), '60');
    await expect.poll(() => page.getByRole('spinbutton', { name: KEY }).isDisabled(), PATIENCE).toBe(false);
    expect((await storedEntries(admin, ids.serviceId, ids.versionId))[KEY]?.rawValue).toBe('60');
  });

  it('applies an approved change request of a protected version as a rollout, from its Apply as rollout…', async () => {
    const key = 'Orders:TimeoutSeconds';
    const orders = await seedVersion(admin, 'orders', '1.0.0', [
      { key, valueType: ValueType.NUMBER, rawValue: '30', groupName: 'Orders' },
    ]);
    const version = `/api/configversions/${orders.serviceId}/${orders.versionId}`;
    expect((await admin.put(version, { versionLabel: '1.0.0', protected: true })).status).toBe(200);
    const windowOf = async (user: string) => {
      await ui.server.userWithRole(user, 'developer');
      const res = await admin.post(`/api/services/${orders.serviceId}/members`, { userId: user, role: 'editor' });
      expect(res.status).toBe(201);
      const window = await ui.window({ reducedMotion: true });
      await signIn(window, user, `${user}-password-for-tests`);
      await window.goto(`/services/${orders.serviceId}/versions/${orders.versionId}`);
      return window;
    };

    // An editor proposes the value; no rollout can start on a protected version but through a request.
    const erin = await windowOf('erin');
    await erin.getByRole('spinbutton', { name: key }).fill('45');
    expect(await erin.getByRole('button', { name: 'Roll out…' }).count()).toBe(0);
    await erin.getByRole('button', { name: 'Request review…' }).click();
    const review = erin.getByRole('dialog', { name: 'Request review' });
    await review.getByLabel('Title').fill('Longer order timeout');
    await review.getByRole('button', { name: 'Request review of 1 change' }).click();
    await review.waitFor({ state: 'hidden' });

    // A second editor approves it.
    const olga = await windowOf('olga');
    await olga.getByRole('article', { name: 'Longer order timeout' }).getByRole('button', { name: 'Approve' }).click();
    await expectVisible(
      olga.getByRole('article', { name: 'Longer order timeout' }).getByText('1 of 1 approval (olga)'),
    );

    // Its author applies it as a rollout at 20 %, then 100 %.
    await erin.reload();
    const request = erin.getByRole('article', { name: 'Longer order timeout' });
    await request.getByRole('button', { name: 'Apply as rollout…' }).click();
    const dialog = erin.getByRole('dialog', { name: 'Roll out “Longer order timeout”' });
    await expectVisible(
      dialog.getByRole('table', { name: 'Changes to roll out' }).getByRole('row', { name: /30.*45/ }),
    );
    await dialog.getByRole('textbox', { name: 'Steps' }).fill('20, 100');
    expect(await seriousA11yViolations(erin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Start rollout' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const rollout = erin.getByRole('region', { name: 'Rollouts' }).getByRole('article', { name: `Rollout of ${key}` });
    await expectVisible(rollout.getByText('Running', { exact: true }));
    const current = rollout.getByRole('list', { name: 'Steps' }).locator('[aria-current="step"]');
    expect(await current.textContent()).toBe('20 % (now)');
    await expectVisible(rollout.getByRole('table').getByText('45'));
    const started = (await admin.get(`${version}/rollouts`)).body as { status: string; steps: number[] }[];
    expect(started).toMatchObject([{ status: 'running', steps: [20, 100] }]);
    // The request is applied: out of the open list, under Applied with its status.
    await expect.poll(() => request.count(), PATIENCE).toBe(0);
    await erin.getByRole('combobox', { name: 'Status', exact: true }).selectOption('applied');
    await expectVisible(request.getByText('applied', { exact: true }));
    expect(await pageProblems(erin)).toEqual([]);
  });
});
