import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownBlocks } from '@realtime-config/test-support/markdown-blocks';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { CLI_BIN, completion } from './test-support/run-cli.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

/**
 * Runs shell commands copied from the documentation with bash (stopping at the first failure), in a
 * folder of their own, with `realtime-config` on the PATH as `npm ci` or `npm install -g` puts it.
 * The only edits are the address of the server (and the credential a reader would paste), listed
 * by each test. Asynchronous: the server under test answers from this same process.
 */
async function shell(script: string, cwd: string, env: Record<string, string>): Promise<string> {
  const bin = path.join(cwd, '.bin');
  if (!existsSync(bin)) {
    mkdirSync(bin);
    const shim = path.join(bin, 'realtime-config');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`);
    chmodSync(shim, 0o755);
  }
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('REALTIME_CONFIG_')),
  );
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...inherited,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      REALTIME_CONFIG_HOME: path.join(cwd, '.config'),
      ...env,
    },
  });
  const { code, stdout, stderr } = await completion(child);
  if (code !== 0) throw new Error(`exit ${code} of:\n${script}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  return stdout;
}

describe("the README's first session with curl, as written", () => {
  let server: TestServer;
  const folder = mkdtempSync(path.join(tmpdir(), 'rc-readme-curl-'));

  beforeAll(async () => {
    // A fresh server as `npm start` makes it: the seeded admin still has the password admin.
    server = await startTestServer({ args: ['--Authentication:Local:DefaultAdminPassword=admin'] });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('changes the default password, then creates a service, a version and an entry, sets it and reads the audit log', async () => {
    const readme = read('README.md');
    const signIn = markdownBlocks(readme, 'Realtime Config', 'sh').find((b) => b.includes('/api/users/me/password'));
    const [session] = markdownBlocks(readme, 'A first session with curl', 'sh');
    expect(signIn).toBeDefined();
    expect(session).toBeDefined();
    const atServer = (block: string) => block.replaceAll('http://localhost:8080', server.baseUrl);
    await shell(atServer(signIn ?? ''), folder, {});
    const output = await shell(atServer(session ?? ''), folder, {});

    // The value set answers the entry at generation 2, and the audit log has its record.
    expect(output).toMatch(/"key":"Db:Timeout"[^}]*"rawValue":"45"/);
    expect(output).toContain('"action":"ValueSet"');
    // GET /api/services lists the service made just before.
    expect(output).toMatch(/"entities":\[\{[^\]]*"name":"orders"/);
  });
});

describe("docs/pipelines.md's commands, as written", () => {
  let server: TestServer;
  let admin: ApiClient;
  const folder = mkdtempSync(path.join(tmpdir(), 'rc-pipelines-'));
  const ids: Record<string, string> = {};
  const guide = read('docs/pipelines.md');
  const atServer = (block: string) => block.replaceAll('https://config.example.com', server.baseUrl);

  const valueOf = async (label: string) =>
    ((await admin.get(`/api/configentries/${ids.payments}/${ids[label]}`)).body as Array<{ rawValue: string }>)[0]
      ?.rawValue;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    ids.payments = (await admin.post('/api/services', { name: 'payments' })).body.id as string;
    for (const [label, value] of [
      ['1.4.0', '30'],
      ['1.5.0', '60'],
      ['2.0.0', '50'],
    ] as const) {
      ids[label] = (await admin.post(`/api/configversions/${ids.payments}`, { versionLabel: label })).body.id as string;
      await admin.post(`/api/configentries/${ids.payments}/${ids[label]}`, {
        key: 'Payments:TimeoutSeconds',
        valueType: 6, // Number
        rawValue: value,
      });
    }
    await admin.put(`/api/configversions/${ids.payments}/${ids['2.0.0']}`, { versionLabel: '2.0.0', protected: true });
    await server.userWithRole('alice', 'developer');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('makes the credentials, uses them in a pipeline, and opens change requests on a protected version', async () => {
    // What the guide's reader fills in: who they are, the server, the service and a version.
    const env = {
      REALTIME_CONFIG_URL: server.baseUrl,
      OWNER: 'admin',
      OWNER_PASSWORD: ADMIN_PASSWORD,
      SERVICE_ID: ids.payments ?? '',
      VERSION_ID: ids['1.5.0'] ?? '',
      // Typed at the password prompt by the person signing in.
      REALTIME_CONFIG_PASSWORD: 'alice-password-for-tests',
    };

    // 2. An API key with the REST API, then a personal token with the CLI.
    const [keyBlock, tokenBlock] = markdownBlocks(guide, '2. Make the credential', 'sh');
    const created = JSON.parse(await shell(keyBlock ?? '', folder, env)) as { key: string; scopes: string[] };
    expect(created).toMatchObject({ key: expect.stringMatching(/^rck_/), scopes: ['read', 'write'] });
    expect(await shell(atServer(tokenBlock ?? ''), folder, env)).toMatch(/^rcp_/m);

    // 4. The CLI from its tarball (installed by installed-cli.test.ts; here its name and --help), then the pipeline.
    const [install = '', pipeline = '', curl = ''] = markdownBlocks(guide, '4. Use it', 'sh');
    const { version } = JSON.parse(read('packages/cli/package.json')) as { version: string };
    expect(install).toContain(`npm install -g ./realtime-config-cli-${version}.tgz`);
    expect(await shell(install.replace(/^npm install .*$/m, ''), folder, env)).toContain('Usage: realtime-config');
    const [review = ''] = markdownBlocks(guide, '5. Protected versions: a second person approves', 'sh');
    // One terminal: the exports of the pipeline hold for the commands after it.
    const output = await shell(
      atServer([pipeline.replace('rck_…', created.key), curl, review].join('\n')),
      folder,
      env,
    );

    expect(output).toContain('An API key of service payments');
    expect(output).toContain('1.5.0 differs');
    expect(output).toMatch(/^Payments__TimeoutSeconds=30$/m);
    expect(readFileSync(path.join(folder, 'payments.yaml'), 'utf8')).toContain('TimeoutSeconds: 30');
    // Imported back from 1.4.0's file after the set; the protected version changed only by requests.
    expect(await valueOf('1.5.0')).toBe('30');
    expect(await valueOf('2.0.0')).toBe('50');
    const requests = (await admin.get(`/api/configversions/${ids.payments}/${ids['2.0.0']}/changerequests`))
      .body as Array<{
      title: string;
      status: string;
    }>;
    expect(requests.map((r) => [r.title, r.status])).toEqual([
      ['Release 812', 'open'],
      ['Longer timeout (build 812)', 'open'],
    ]);
  });
});
