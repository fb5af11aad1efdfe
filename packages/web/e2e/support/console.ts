import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import {
  startTestServer,
  type ApiClient,
  type StartOptions,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { launchChromium } from '@realtime-config/test-support/chromium';
import { TEST_CONSOLE_DIR_VARIABLE } from './console-dir.js';

export { CHROMIUM, launchChromium } from '@realtime-config/test-support/chromium';

/**
 * How long a browser test waits for something to appear: generous, because the whole suite shares two
 * cores with the servers under test (a wait, never a measurement).
 */
const PATIENCE_MS = 30_000;

export interface ConsoleUnderTest {
  readonly server: TestServer;
  readonly browser: Browser;
  /** A fresh browser window (its own cookies) at the console, 1280 px wide. */
  window(options?: { colorScheme?: 'light' | 'dark'; width?: number; reducedMotion?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The real server on SQLite serving the built console, and a browser to use it. The console is the
 * browser tests' own build (build-console.ts) when they run under vitest, packages/web/dist otherwise
 * (benchmarks, screenshots).
 */
export async function startConsole(options: StartOptions = {}): Promise<ConsoleUnderTest> {
  const consoleDir = process.env[TEST_CONSOLE_DIR_VARIABLE];
  const server = await startTestServer({
    ...options,
    args: [...(consoleDir ? [`--Server:ConsoleDir=${consoleDir}`] : []), ...(options.args ?? [])],
  });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    server,
    browser,
    async window({ colorScheme = 'light', width = 1280, reducedMotion = false } = {}) {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        colorScheme,
        reducedMotion: reducedMotion ? 'reduce' : 'no-preference',
        baseURL: server.baseUrl,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(PATIENCE_MS);
      return page;
    },
    async close() {
      await Promise.all(contexts.map((c) => c.close()));
      await browser.close();
      await server.close();
    },
  };
}

export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Waits until the locator's input value is the expected one (Playwright's own expect is not in playwright-core). */
export async function expectValue(locator: Locator, expected: string): Promise<void> {
  await locator.waitFor({ state: 'attached', timeout: PATIENCE_MS });
  await expect.poll(() => locator.inputValue(), { timeout: PATIENCE_MS }).toBe(expected);
}

export async function expectVisible(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: PATIENCE_MS });
}

export interface SeedEntry {
  readonly key: string;
  readonly valueType: number;
  readonly rawValue: string | null;
  readonly enumDefinition?: string;
  readonly groupName?: string;
  readonly groupDescription?: string;
  readonly description?: string;
  readonly isSecret?: boolean;
  /** The entry's JSON Schema (docs/validation.md). */
  readonly schema?: Record<string, unknown>;
}

/** A service with one version and entries, made through the REST API. */
export async function seedVersion(admin: ApiClient, name: string, label: string, entries: readonly SeedEntry[]) {
  const service = await admin.post('/api/services', { name });
  if (service.status !== 201) throw new Error(`service: ${service.text}`);
  const version = await admin.post(`/api/configversions/${service.body.id}`, { versionLabel: label });
  if (version.status !== 201) throw new Error(`version: ${version.text}`);
  const created: Record<string, { id: string; generation: number }> = {};
  for (const entry of entries) {
    const res = await admin.post(`/api/configentries/${service.body.id}/${version.body.id}`, entry);
    if (res.status !== 201) throw new Error(`entry ${entry.key}: ${res.text}`);
    created[entry.key] = res.body;
  }
  return { serviceId: service.body.id as string, versionId: version.body.id as string, entries: created };
}

export interface StoredEntry {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  readonly description: string | null;
  readonly rawValue: string | null;
  readonly generation: number;
  readonly updatedAt: string;
}

/** The stored entries of a version by key, as the REST API answers them. */
export async function storedEntries(
  client: ApiClient,
  serviceId: string,
  versionId: string,
): Promise<Record<string, StoredEntry>> {
  const res = await client.get(`/api/configentries/${serviceId}/${versionId}`);
  if (res.status !== 200) throw new Error(res.text);
  return Object.fromEntries((res.body as StoredEntry[]).map((e) => [e.key, e]));
}
