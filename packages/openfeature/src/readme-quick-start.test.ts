import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownBlocks } from '@realtime-config/test-support/markdown-blocks';
import { installPacked, repoRoot, run, started } from '@realtime-config/test-support/packed-package';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const readme = readFileSync(path.join(repoRoot, 'packages/openfeature/README.md'), 'utf8');

/**
 * The provider's quick start as a new user follows it: the packed provider (built first, as `npm ci`
 * does) and @openfeature/server-sdk installed into an empty application folder, then its code saved
 * as app.mjs and run against a server, exactly as written.
 */
describe('the quick start of the OpenFeature provider, from its tarball', () => {
  let machine = '';
  let app = '';
  let tarball = '';
  let server: TestServer;
  let admin: ApiClient;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    run('npm', ['run', 'build', '--silent', '-w', '@realtime-config/openfeature'], repoRoot);
    ({ machine, app, tarball } = installPacked('@realtime-config/openfeature', ['@openfeature/server-sdk']));
    server = await startTestServer({ args: ['--Grpc:RequireAuthentication=true'] });
    admin = await server.admin();
  }, 300_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await server?.close();
    rmSync(machine, { recursive: true, force: true });
  });

  it('installs as the quick start says and runs its code: the value, then a change made over REST', async () => {
    const [install] = markdownBlocks(readme, 'Quick start', 'sh');
    expect(install).toContain('npm pack -w @realtime-config/openfeature');
    expect(install).toContain(`TARBALL="$PWD/${tarball}"`);
    expect(install).toContain('npm install "$TARBALL" @openfeature/server-sdk');

    const serviceId = (await admin.post('/api/services', { name: 'readme-openfeature' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    const entries = `/api/configentries/${serviceId}/${versionId}`;
    const entry = await admin.post(entries, { key: 'Features:NewCheckout', valueType: 2, rawValue: 'true' });
    expect(entry.status, entry.text).toBe(201);
    const apiKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'app', scopes: ['read'] })).body
      .key as string;

    const [code] = markdownBlocks(readme, 'Quick start', 'ts');
    writeFileSync(path.join(app, 'app.mjs'), code ?? '');
    child = spawn(process.execPath, ['app.mjs'], {
      cwd: app,
      env: { ...process.env, RC_URL: server.baseUrl, RC_SERVICE_ID: serviceId, RC_API_KEY: apiKey },
    });
    const program = started(child);
    // In process, then for one user through OFREP.
    await program.waitFor(/^true\ntrue$/m);
    const set = await admin.put(`${entries}/set`, [
      { id: entry.body.id, rawValue: 'false', generation: entry.body.generation },
    ]);
    expect(set.status, set.text).toBe(200);
    await program.waitFor(/^changed \[ 'Features:NewCheckout' \] false$/m);
    child.kill('SIGTERM');

    // The shorter quick start of docs/openfeature.md, in the same folder.
    const docs = readFileSync(path.join(repoRoot, 'docs/openfeature.md'), 'utf8');
    const [short] = markdownBlocks(docs, 'The Node provider', 'ts');
    writeFileSync(path.join(app, 'docs.mjs'), short ?? '');
    child = spawn(process.execPath, ['docs.mjs'], {
      cwd: app,
      env: { ...process.env, RC_URL: server.baseUrl, RC_SERVICE_ID: serviceId, RC_API_KEY: apiKey },
    });
    await started(child).waitFor(/^false$/m);
  });
});
