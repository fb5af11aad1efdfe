import * as grpc from '@grpc/grpc-js';
import { CONSOLE_SDK, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { seriousA11yViolations } from './support/axe.js';
import { expectVisible, seedVersion, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';

/** The Instances section of a version: who holds its change stream, and whether they have the newest change. */
describe('the Instances section of a version', () => {
  let ui: ConsoleUnderTest;
  let ids: Awaited<ReturnType<typeof seedVersion>>;
  let grpcClient: GrpcTestClient;

  beforeAll(async () => {
    ui = await startConsole();
    const admin = await ui.server.admin();
    ids = await seedVersion(admin, 'checkout', '3.1.0', [
      { key: 'Checkout:Retries', valueType: ValueType.NUMBER, rawValue: '3', groupName: 'Checkout' },
    ]);
    grpcClient = new GrpcTestClient(`127.0.0.1:${ui.server.port}`);
  });
  afterAll(async () => {
    grpcClient?.close();
    await ui?.close();
  });

  it('lists an application while it is connected, with its labels, and drops it when it leaves', async () => {
    const page = await ui.window();
    await signIn(page, 'admin', 'admin-password-for-tests');
    await page.goto(`/services/${ids.serviceId}/versions/${ids.versionId}`);
    const section = page.getByRole('region', { name: 'Instances' });
    // The console's own stream (open once the page is live) is a person looking, not an instance.
    await expectVisible(page.getByText('Live', { exact: true }));
    await expectVisible(section.getByText('No instance is connected.'));

    const metadata = new grpc.Metadata();
    metadata.set('x-rc-instance-id', 'checkout-pod-7');
    metadata.set('x-rc-sdk', '@realtime-config/client/0.1.0');
    metadata.set('x-rc-labels', 'region=eu-west-1');
    const app = grpcClient.subscribe({ serviceId: ids.serviceId, versionId: ids.versionId }, metadata);
    try {
      await app.until((s) => s.events.length > 0);
      await expectVisible(section.getByText('1 of 1 up to date'));
      const row = section.getByRole('row').filter({ hasText: 'checkout-pod-7' });
      await expectVisible(row);
      await expectVisible(row.getByText('region=eu-west-1'));
      await expectVisible(row.getByRole('cell', { name: '@realtime-config/client/0.1.0' }));
      await expectVisible(row.getByText('Up to date'));
      expect(await section.getByText(CONSOLE_SDK).count()).toBe(0);
      expect(await seriousA11yViolations(page)).toEqual([]);
    } finally {
      app.cancel();
    }
    await expectVisible(section.getByText('0 of 0 up to date'));
    expect(await section.getByRole('row').filter({ hasText: 'checkout-pod-7' }).count()).toBe(0);
  });
});
