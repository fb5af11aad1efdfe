/**
 * The console's figures for BENCHMARKS.md: the size of every built chunk (gzipped), what the first page
 * load fetches, and the time until the services page and a 2,000-entry version page show their data
 * (performance marks set by the screens), median of 5 cold loads in headless Chromium; plus the time a
 * search of the 2,000 entries takes to show its result. Run: `npm run bench -w @realtime-config/web`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { startConsole } from '../e2e/support/console.js';
import { manyEntries, registerVersion } from '../e2e/support/register-version.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 5;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

await build({ root, configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
const dist = path.join(root, 'dist');
const assets = readdirSync(path.join(dist, 'assets')).filter((f) => /\.(js|css)$/.test(f));
const size = (file: string) => {
  const data = readFileSync(path.join(dist, 'assets', file));
  return { raw: data.length, gzip: gzipSync(data, { level: 9 }).length };
};
const index = readFileSync(path.join(dist, 'index.html'), 'utf8');
const initial = new Set([...index.matchAll(/assets\/([^"]+\.(?:js|css))/g)].map((m) => m[1] ?? ''));

console.log('| chunk | raw | gzip | loaded |');
console.log('| --- | ---: | ---: | --- |');
const rows = assets.map((file) => ({ file, ...size(file) })).sort((a, b) => b.gzip - a.gzip);
for (const row of rows.slice(0, 15)) {
  console.log(
    `| ${row.file.replace(/-[\w-]{8}\./, '.')} | ${kb(row.raw)} | ${kb(row.gzip)} | ${initial.has(row.file) ? 'initial' : 'on demand'} |`,
  );
}
const others = rows.slice(15);
console.log(
  `| ${others.length} smaller chunks | ${kb(others.reduce((s, r) => s + r.raw, 0))} | ${kb(others.reduce((s, r) => s + r.gzip, 0))} | on demand |`,
);
const initialJs = rows.filter((r) => initial.has(r.file) && r.file.endsWith('.js'));
console.log(
  `\ninitial JavaScript: ${kb(initialJs.reduce((s, r) => s + r.gzip, 0))} gzipped (${initialJs.length} files)`,
);

const ui = await startConsole();
try {
  const admin = await ui.server.admin();
  for (let i = 1; i <= 40; i++) await admin.post('/api/services', { name: `service-${i}` });
  const serviceId = (await admin.post('/api/services', { name: 'big' })).body.id as string;
  const versionId = await registerVersion(ui.server.baseUrl, serviceId, '1.0.0', manyEntries(2000));
  const cookie = (admin.sessionCookie ?? '').split('=');

  const coldLoad = async (url: string, mark: string, afterReady?: (page: Page) => Promise<number>) => {
    const page = await ui.window();
    await page
      .context()
      .addCookies([{ name: cookie[0] ?? '', value: cookie.slice(1).join('='), url: ui.server.baseUrl }]);
    await page.goto(url);
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, mark, { timeout: 60_000 });
    const ready = await page.evaluate((name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN, mark);
    const extra = afterReady ? await afterReady(page) : NaN;
    await page.context().close();
    return { ready, extra };
  };

  const services: number[] = [];
  const version: number[] = [];
  const search: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    services.push((await coldLoad('/services', 'rc:services-ready')).ready);
    const run = await coldLoad(`/services/${serviceId}/versions/${versionId}`, 'rc:version-ready', async (page) => {
      await page.getByLabel('Module00:Setting0000').waitFor();
      return page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const input = document.querySelector<HTMLInputElement>('input[type=search]');
            const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
            if (!input || !setValue) throw new Error('no search field');
            const start = performance.now();
            const observer = new MutationObserver(() => {
              if (document.querySelector('[aria-label="Module19:Setting1995"]')) {
                observer.disconnect();
                resolve(performance.now() - start);
              }
            });
            observer.observe(document.body, { subtree: true, childList: true });
            setValue.call(input, 'Setting1995');
            input.dispatchEvent(new Event('input', { bubbles: true }));
          }),
      );
    });
    version.push(run.ready);
    search.push(run.extra);
  }
  console.log('\n| cold load, median of 5 (ms after navigation start) | value |');
  console.log('| --- | ---: |');
  console.log(`| services page shows its list (40 services) | ${median(services).toFixed(0)} |`);
  console.log(`| version page shows 2,000 entries | ${median(version).toFixed(0)} |`);
  console.log(`| search of 2,000 entries shows the match (from the keystroke) | ${median(search).toFixed(0)} |`);
  console.log(
    `\nruns: services ${services.map((v) => v.toFixed(0)).join(', ')}; version ${version.map((v) => v.toFixed(0)).join(', ')}; search ${search.map((v) => v.toFixed(0)).join(', ')}`,
  );
} finally {
  await ui.close();
}
