import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/** Writes a console build the way Vite does it: emptied folder, hashed names, index.html naming them. */
function writeBuild(dir: string, hash: string): void {
  for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><script type="module" crossorigin src="/assets/index-${hash}.js"></script>` +
      `<link rel="stylesheet" crossorigin href="/assets/index-${hash}.css"></head><body><div id="root"></div></body></html>`,
  );
  writeFileSync(path.join(dir, 'assets', `index-${hash}.js`), `import('./lazy-${hash}.js');`);
  writeFileSync(path.join(dir, 'assets', `lazy-${hash}.js`), `export const build = '${hash}';`);
  writeFileSync(path.join(dir, 'assets', `index-${hash}.css`), `body{--build:'${hash}'}`);
}

/** What a browser opening the console now gets: the document and every file it names. */
async function openConsole(client: ApiClient): Promise<{ html: string; assets: Record<string, number> }> {
  const page = await client.get<string>('/');
  expect(page.status).toBe(200);
  const named = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  expect(named.length).toBeGreaterThan(0);
  const assets: Record<string, number> = {};
  for (const url of named) assets[url] = (await client.get(url)).status;
  return { html: page.text, assets };
}

const snapshots = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`realtime-config-console-${process.pid}-`));

describe('the web console during a rebuild of its files', () => {
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'rc-console-build-'));
  let server: TestServer;
  let snapshotsBefore: number;

  beforeAll(async () => {
    writeBuild(consoleDir, 'AAAA1111');
    snapshotsBefore = snapshots().length;
    server = await startTestServer({ args: [`--Server:ConsoleDir=${consoleDir}`] });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  it('keeps serving the build it started with, to new browsers and to open ones, while the files are replaced', async () => {
    const browser = server.client();
    const opened = await openConsole(browser);
    expect(opened.html).toContain('index-AAAA1111.js');
    expect(Object.values(opened.assets)).toEqual([200, 200]);

    // The rebuild empties the folder first: a browser arriving now still gets a whole console.
    for (const name of readdirSync(consoleDir)) rmSync(path.join(consoleDir, name), { recursive: true, force: true });
    expect(await openConsole(server.client())).toEqual(opened);

    writeBuild(consoleDir, 'BBBB2222');
    expect(await openConsole(server.client())).toEqual(opened);
    // The open page loads its lazy chunk after the rebuild: still there.
    const lazy = await browser.get('/assets/lazy-AAAA1111.js');
    expect(lazy.status).toBe(200);
    expect(lazy.text).toContain("'AAAA1111'");
    expect(lazy.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await browser.get('/assets/lazy-BBBB2222.js')).status).toBe(404);
  });

  it('serves the new build once restarted, and removes its private copy when it stops', async () => {
    expect(snapshots()).toHaveLength(snapshotsBefore + 1);
    await server.close();
    expect(snapshots()).toHaveLength(snapshotsBefore);
    server = await startTestServer({ args: [`--Server:ConsoleDir=${consoleDir}`] });
    const { html, assets } = await openConsole(server.client());
    expect(html).toContain('index-BBBB2222.js');
    expect(Object.values(assets)).toEqual([200, 200]);
  });
});
