import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '@realtime-config/test-support/chromium';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { serveExample } from '../../../examples/openfeature-web/serve.mjs';
import { until } from '../../client/src/test-support/fixtures.js';

/**
 * examples/openfeature-web in Debian's Chromium: a static page on its own origin using the official
 * @openfeature/ofrep-web-provider, unchanged, against a server whose Ofrep:AllowedOrigins names
 * that origin; a value changed over REST reaches the page by the provider's polling.
 */
describe('the OpenFeature web example in Chromium', () => {
  let example: Server;
  let origin: string;
  let server: TestServer;
  let admin: ApiClient;
  let browser: Browser;

  beforeAll(async () => {
    example = await serveExample(0);
    origin = `http://127.0.0.1:${(example.address() as AddressInfo).port}`;
    server = await startTestServer({ args: [`--Ofrep:AllowedOrigins=${origin}`] });
    admin = await server.admin();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    example?.close();
  });

  it('shows the flag, then the value changed over REST', async () => {
    const serviceId = (await admin.post('/api/services', { name: 'web-flags' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    const entries = `/api/configentries/${serviceId}/${versionId}`;
    const entry = await admin.post(entries, { key: 'Payments:Provider', valueType: 1, rawValue: 'Adyen' });
    expect(entry.status, entry.text).toBe(201);
    const apiKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'web', scopes: ['read'] })).body
      .key as string;

    const page = await browser.newPage();
    const query = new URLSearchParams({ server: server.baseUrl, apiKey, version: '1.0.0', poll: '200' });
    await page.goto(`${origin}/?${query.toString()}`);
    const provider = page.getByRole('status', { name: 'Flag value' });
    const status = page.getByRole('status', { name: 'Flag status' });
    await until(async () => (await provider.textContent()) === 'Adyen', 'the first value in the page', 30_000);
    expect(await status.textContent()).toBe('STATIC');

    const set = await admin.put(`${entries}/set`, [
      { id: entry.body.id, rawValue: 'Mollie', generation: entry.body.generation },
    ]);
    expect(set.status, set.text).toBe(200);
    await until(async () => (await provider.textContent()) === 'Mollie', 'the changed value in the page', 30_000);
    await page.close();
  });
});
