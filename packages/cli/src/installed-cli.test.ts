import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { CliUser, completion, waitForOutput } from './test-support/run-cli.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** Packing may build what is stale; installing fetches the CLI's dependencies. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * The CLI as a pipeline gets it: `npm pack` in the repository, `npm install -g` of the tarball alone
 * into an empty folder (its own prefix, nothing of the repository reachable), then run by its
 * command against a server. Slow (the install), so once per run, and on SQLite only.
 */
describe('the packed CLI, installed from its tarball into an empty folder', () => {
  const machine = mkdtempSync(path.join(tmpdir(), 'rc-cli-installed-'));
  const prefix = path.join(machine, 'usr');
  const installed = path.join(prefix, 'lib', 'node_modules', '@realtime-config', 'cli');
  let server: TestServer;
  let admin: ApiClient;
  let user: CliUser;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    const packed = path.join(machine, 'packed');
    mkdirSync(packed);
    // The build is the one this run's global setup made: without its scripts, packing does not build
    // again (prepack), which would replace dist/ under the other CLI tests running meanwhile.
    run(
      'npm',
      ['pack', '--silent', '--ignore-scripts', '-w', '@realtime-config/cli', '--pack-destination', packed],
      repoRoot,
    );
    const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(packed, tarball!)], machine);

    server = await startTestServer({ kind: 'sqlite' });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'installed' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    const entry = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Checkout:Provider',
      valueType: 1,
      rawValue: 'Stripe',
    });
    expect(entry.status, entry.text).toBe(201);
    // The installed command itself, as a shell finds it on PATH (its `#!/usr/bin/env node` finds this Node).
    user = new CliUser(server.baseUrl, {}, [path.join(prefix, 'bin', 'realtime-config')]);
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await server?.close();
    rmSync(machine, { recursive: true, force: true });
  });

  it('carries the SDK and the protocol compiled in, and nothing under the workspace packages’ names', () => {
    for (const file of ['cli/src/main.js', 'client/src/index.js', 'protocol/src/index.js']) {
      expect(existsSync(path.join(installed, 'dist', file)), file).toBe(true);
    }
    expect(existsSync(path.join(installed, 'node_modules', '@realtime-config'))).toBe(false);
  });

  it('prints its help', async () => {
    const help = await user.run(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: realtime-config');
  });

  it('signs in, reads a value, and watches a change through the SDK it carries', async () => {
    const login = await user.run(['login', '--user', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(await user.run(['get', 'installed', '1.0', 'Checkout:Provider'])).toMatchObject({
      code: 0,
      stdout: 'Stripe\n',
    });

    const watcher = user.spawn(['--json', 'watch', 'installed', '1.0']);
    const done = completion(watcher);
    await waitForOutput(watcher, 'Watching installed 1.0');
    const [entry] = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body;
    const changed = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: entry.id, rawValue: 'Adyen', generation: entry.generation },
    ]);
    expect(changed.status, changed.text).toBe(200);
    await waitForOutput(watcher, 'Adyen');
    watcher.kill('SIGINT');
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ key: 'Checkout:Provider', value: 'Adyen' });
  });
});
