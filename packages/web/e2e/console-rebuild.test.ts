import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD } from '@realtime-config/test-support/test-server';
import { expectVisible, signIn, startConsole, type ConsoleUnderTest } from './support/console.js';
import { TEST_CONSOLE_DIR_VARIABLE } from './support/console-dir.js';

describe('the console while its files are rebuilt under the running server', () => {
  // A folder of its own, as packages/web/dist is for `npm start`: this test rebuilds it.
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'rc-e2e-rebuilt-'));
  let ui: ConsoleUnderTest;

  beforeAll(async () => {
    cpSync(process.env[TEST_CONSOLE_DIR_VARIABLE] ?? '', consoleDir, { recursive: true });
    ui = await startConsole({ args: [`--Server:ConsoleDir=${consoleDir}`] });
    await (await ui.server.admin()).post('/api/services', { name: 'rebuilt-under-it' });
  });
  afterAll(async () => {
    await ui?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  it('loads for a new browser and keeps working in an open one after the build it started with is gone', async () => {
    const open = await ui.window();
    await open.goto('/');
    await expectVisible(open.getByLabel('Username'));

    // `npm run build` empties the folder and writes files with other hashed names.
    for (const name of readdirSync(consoleDir)) rmSync(path.join(consoleDir, name), { recursive: true, force: true });
    writeFileSync(
      path.join(consoleDir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/index-Rebuilt1.js"></script>',
    );

    const failures: string[] = [];
    const watch = (response: Response) => {
      // Before sign-in the console asks who is signed in: 401 is the answer it expects.
      if (response.status() >= 400 && !response.url().endsWith('/auth/me')) {
        failures.push(`${response.status()} ${response.url()}`);
      }
    };
    const fresh = await ui.window();
    fresh.on('response', watch);
    open.on('response', watch);
    await signIn(fresh, 'admin', ADMIN_PASSWORD);
    await fresh.getByRole('link', { name: 'rebuilt-under-it' }).click();
    await expectVisible(fresh.getByRole('heading', { name: 'rebuilt-under-it' }));

    // The open page, never reloaded, signs in and loads screens it had not needed yet (lazy chunks).
    await open.getByLabel('Username').fill('admin');
    await open.getByLabel('Password').fill(ADMIN_PASSWORD);
    await open.getByRole('button', { name: 'Sign in' }).click();
    await open.getByRole('link', { name: 'rebuilt-under-it' }).click();
    await expectVisible(open.getByRole('heading', { name: 'rebuilt-under-it' }));
    await open.getByRole('link', { name: 'Users' }).click();
    await expectVisible(open.getByRole('heading', { name: 'Users', exact: true }));
    expect(failures).toEqual([]);
  });
});
