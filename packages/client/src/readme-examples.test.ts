import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownBlocks } from '@realtime-config/test-support/markdown-blocks';
import { installPacked, repoRoot, run, started } from '@realtime-config/test-support/packed-package';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const clientReadme = readFileSync(path.join(repoRoot, 'packages/client/README.md'), 'utf8');
const rootReadme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/**
 * The SDK's documentation as a new user follows it: the quick start's install (the packed SDK, since
 * it is not on the registry) into a new application folder, then its code saved as app.mjs and run
 * against a server, exactly as written; the other snippets compile against the installed package.
 */
describe('the README examples of the SDK, as written', () => {
  let machine = '';
  let app = '';
  let server: TestServer;
  let admin: ApiClient;
  let tarball: string;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    // The quick start's commands, with the tarball written to a folder of the test's own; zod for
    // the declaration example ("npm install zod").
    ({ machine, app, tarball } = installPacked('@realtime-config/client', ['zod']));
  }, 180_000);

  afterAll(async () => {
    for (const child of running) child.kill('SIGKILL');
    await server?.close();
    rmSync(machine, { recursive: true, force: true });
  });

  async function runAgainstServer(code: string, serviceName: string) {
    const serviceId = (await admin.post('/api/services', { name: serviceName })).body.id as string;
    writeFileSync(path.join(app, 'app.mjs'), code);
    const child = spawn(process.execPath, ['app.mjs'], {
      cwd: app,
      env: { ...process.env, RC_URL: server.baseUrl, RC_SERVICE_ID: serviceId },
    });
    running.push(child);
    const program = started(child);
    // The first connect registers 1.0.0 and prints the default.
    await program.waitFor(/^30$/m);
    const [version] = (await admin.get(`/api/configversions/${serviceId}`)).body as Array<{ id: string }>;
    const entries = `/api/configentries/${serviceId}/${version?.id}`;
    const timeout = ((await admin.get(entries)).body as Array<{ id: string; key: string; generation: number }>).find(
      (e) => e.key === 'Payments:TimeoutSeconds',
    );
    const set = await admin.put(`${entries}/set`, [
      { id: timeout?.id, rawValue: '45', generation: timeout?.generation },
    ]);
    expect(set.status).toBe(200);
    await program.waitFor(/key: 'Payments:TimeoutSeconds'[\s\S]*newValue: 45/);
    child.kill('SIGTERM');
  }

  it('installs from the packed tarball the quick start names', () => {
    const [install] = markdownBlocks(clientReadme, 'Quick start', 'sh');
    expect(install).toContain('npm pack -w @realtime-config/client');
    expect(install).toContain(`TARBALL="$PWD/${tarball}"`);
    expect(install).toContain('npm install "$TARBALL"');
    expect(clientReadme).not.toMatch(/npm install @realtime-config\/client/);
  });

  it('runs the quick start of the SDK: the default first, then a change made through the API', async () => {
    const [code] = markdownBlocks(clientReadme, 'Quick start', 'ts');
    await runAgainstServer(code ?? '', 'readme-sdk');
  });

  it('runs the example of the repository README the same way', async () => {
    const [code] = markdownBlocks(rootReadme, 'Use it from a Node application', 'ts');
    await runAgainstServer(code ?? '', 'readme-root');
  });

  it('compiles every other SDK snippet against the installed package, and runs those that need no server', () => {
    const [quickStart = ''] = markdownBlocks(clientReadme, 'Quick start', 'ts');
    const snippets: Record<string, string> = {
      'declaring.mts': markdownBlocks(clientReadme, 'Declaring the configuration', 'ts')[0] ?? '',
      // "What connect gives": the quick start's config, used further.
      'client.mts': `${quickStart}\n${markdownBlocks(clientReadme, 'The client', 'ts')[0] ?? ''}`,
      'static.mts': markdownBlocks(clientReadme, 'Tests of your application', 'ts')[0] ?? '',
      'watch.mts': markdownBlocks(clientReadme, 'Following a version without a schema', 'ts')[0] ?? '',
    };
    for (const [name, code] of Object.entries(snippets)) {
      expect(code, name).not.toBe('');
      writeFileSync(path.join(app, name), code);
    }
    const program = ts.createProgram(
      Object.keys(snippets).map((name) => path.join(app, name)),
      {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        typeRoots: [path.join(repoRoot, 'node_modules/@types')],
      },
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);

    for (const name of ['declaring.mts', 'static.mts']) {
      const js = ts.transpileModule(snippets[name] ?? '', {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const file = path.join(app, name.replace('.mts', '.mjs'));
      writeFileSync(file, js);
      const output = run(process.execPath, [file], app);
      if (name === 'static.mts') expect(output).toContain("{ TimeoutSeconds: 1, Mode: 'Live' }");
    }
  });
});
