import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@realtime-config/test-support/server-process';
import { ApiClient } from '@realtime-config/test-support/test-server';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
/** Packing may build, and installing compiles better-sqlite3 when no binary for this Node can be had. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

async function waitUntilReady(client: ApiClient, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await client.get('/readyz').catch(() => ({ status: 0 }))).status !== 200) {
    if (Date.now() > deadline) throw new Error(`the installed server did not get ready:\n${output()}`);
    await setTimeout(250);
  }
}

/**
 * better-sqlite3's binary for the Node running the tests, as the download its install looks for
 * first: an operator's install fetches it from the project's GitHub releases, which this machine
 * cannot reach, and compiling it instead takes minutes. The repository's own copy, built by its
 * `npm ci` for this Node, is that binary. Returns the install's environment.
 */
function localBetterSqlitePrebuild(folder: string): Record<string, string> {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  const binary = path.join(packageDir, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binary)) return {};
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const staged = path.join(folder, 'staged');
  mkdirSync(path.join(staged, 'build', 'Release'), { recursive: true });
  copyFileSync(binary, path.join(staged, 'build', 'Release', 'better_sqlite3.node'));
  // prebuild-install's name for it: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  run('tar', ['czf', path.join(folder, name), '-C', staged, 'build'], folder);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

/**
 * The headers of the Node running the tests, when its folder has them: better-sqlite3 is compiled at
 * install for this Node (.ci/test-on-node runs the suite on a Node from the registry too).
 */
function nodeHeaders(): Record<string, string> {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(prefix, 'include', 'node', 'common.gypi')) ? { npm_config_nodedir: prefix } : {};
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * The server as an operator gets it: `npm pack` in the repository, `npm install -g` of the tarball
 * into an empty folder (its own prefix, nothing of the repository reachable), started by its command
 * with `--config` from another folder. Slow (the install), so once per run, and on SQLite only.
 */
describe('the packed server, installed from its tarball into an empty folder', () => {
  const machine = mkdtempSync(path.join(tmpdir(), 'rc-installed-'));
  const prefix = path.join(machine, 'usr');
  const bin = path.join(prefix, 'bin', 'realtime-config-server');
  const configFile = path.join(machine, 'etc', 'appsettings.json');
  let server: ChildProcess | undefined;
  let output = '';
  let client: ApiClient;

  beforeAll(async () => {
    const packed = path.join(machine, 'packed');
    mkdirSync(packed);
    run('npm', ['pack', '--silent', '-w', '@realtime-config/server', '--pack-destination', packed], repoRoot);
    const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(packed, tarball!)], machine, {
      ...nodeHeaders(),
      ...localBetterSqlitePrebuild(path.join(machine, 'prebuilds')),
    });

    const port = await findFreePort();
    mkdirSync(path.dirname(configFile));
    writeFileSync(
      configFile,
      JSON.stringify({
        Server: { Port: port, Host: '127.0.0.1' },
        Database: { DataDir: path.join(machine, 'var', 'data') },
        Authentication: { Provider: 'Local' },
        Logging: { Level: 'warn' },
      }),
    );
    const elsewhere = mkdtempSync(path.join(machine, 'cwd-'));
    server = spawn(bin, ['--config', configFile], { cwd: elsewhere, env: { PATH: process.env.PATH ?? '' } });
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    client = new ApiClient(`http://127.0.0.1:${port}`);
    await waitUntilReady(client, () => output);
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(machine, { recursive: true, force: true });
  });

  it('carries what it needs: the protocol compiled in, the console built for production, the systemd units', () => {
    const installed = path.join(prefix, 'lib', 'node_modules', '@realtime-config', 'server');
    expect(existsSync(path.join(installed, 'dist', 'protocol', 'src', 'index.js'))).toBe(true);
    // Nothing from the registry under the workspace's name (where it does not exist).
    expect(existsSync(path.join(installed, 'node_modules', '@realtime-config'))).toBe(false);
    expect(readdirSync(path.join(installed, 'deploy', 'systemd')).sort()).toEqual([
      'realtime-config-backup.service',
      'realtime-config-backup.timer',
      'realtime-config.service',
    ]);
    const assets = readdirSync(path.join(installed, 'console', 'assets'));
    const scripts = assets.filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const name of scripts) {
      expect(assets, name).toContain(`${name}.br`);
      expect(readFileSync(path.join(installed, 'console', 'assets', name), 'utf8')).not.toContain('jsxDEV');
    }
  });

  it('serves the web console: the document and every script and style it names', async () => {
    const page = await client.get<string>('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const named = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const url of named) expect((await client.get(url)).status, url).toBe(200);
    const compressed = await fetch(`${client.baseUrl}${named[0]}`, { headers: { 'accept-encoding': 'br' } });
    expect(compressed.headers.get('content-encoding')).toBe('br');
  });

  it('signs in, asks for the default password to be changed, then serves the API', async () => {
    const admin = await client.login('admin', 'admin');
    expect((await admin.post('/api/services', { name: 'installed' })).status).toBe(403);
    const change = await admin.put('/api/users/me/password', {
      currentPassword: 'admin',
      newPassword: 'an-installed-admin-password',
    });
    expect(change.status).toBe(204);
    expect((await admin.post('/api/services', { name: 'installed' })).status).toBe(201);
    expect(output).toContain('the API refuses it everything but signing in and changing the password');
  });

  it('runs its commands with the same configuration while it serves', () => {
    expect(run(bin, ['check-config', '--config', configFile], machine)).toContain('The configuration is valid.');
    const backup = path.join(machine, 'backup.db');
    expect(run(bin, ['--config', configFile, 'backup', backup], machine)).toContain(`Backed up ${backup}`);
    expect(run(bin, ['--version'], machine).trim()).toBe(
      (JSON.parse(readFileSync(path.join(repoRoot, 'packages/server/package.json'), 'utf8')) as { version: string })
        .version,
    );
  });
});
