import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findFreePort,
  killServerProcesses,
  runServerCommand,
  serverProcessArgs,
  startServerProcess,
} from '@realtime-config/test-support/server-process';

const folders: string[] = [];
afterAll(async () => {
  await killServerProcesses();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function folderWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-check-config-'));
  folders.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

/** The problems check-config listed, one per line after its heading. */
const problemsIn = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));

// Each test runs its own processes in folders of its own: they run at the same time.
describe.concurrent('realtime-config-server check-config', () => {
  it('names every problem of every source, each with its key, and exits 1', async () => {
    const cwd = folderWith({
      'appsettings.json': {
        Server: { Port: 'eighty', Hots: 'example.com' },
        Database: { Url: 'mysql://db.example.com/config' },
        Authentication: { Provider: 'Local' },
      },
      'appsettings.Staging.json': { Grpc: { KeepAliveSeconds: 0 } },
    });
    const result = await runServerCommand(['check-config', '--Session:Secret=too-short'], {
      cwd,
      env: { APP_ENV: 'Staging', Logging__Level: 'loud', Authentication__Local__SignInLimits__PerUser: '0' },
    });
    expect(result.code).toBe(1);
    const problems = problemsIn(result.stderr);
    expect(result.stderr).toContain(`The configuration has ${problems.length} problems:`);
    for (const key of [
      'Server:Port',
      'Server:Hots',
      'Database:Url',
      'Grpc:KeepAliveSeconds',
      'Logging:Level',
      'Authentication:Local:SignInLimits:PerUser',
      'Session:Secret',
    ]) {
      expect(
        problems.filter((problem) => problem.includes(key)),
        key,
      ).toHaveLength(1);
    }
    expect(problems).toHaveLength(7);
    expect(result.stdout).not.toContain('valid');
  });

  it('goes on past a settings file it cannot parse and reads the other sources', async () => {
    const cwd = folderWith({ 'etc/settings.json': '{ "Server": { "Port": 80' });
    const result = await runServerCommand(['--config', 'etc/settings.json', 'check-config', '--Server:Port=-1'], {
      cwd,
      env: { Authentication__Provider: 'Kerberos' },
    });
    expect(result.code).toBe(1);
    const problems = problemsIn(result.stderr);
    expect(problems).toEqual([
      expect.stringMatching(/^configuration file .*settings\.json is not valid JSON/),
      expect.stringContaining('Server:Port must be an integer between 0 and 65535 (got "-1")'),
      expect.stringContaining('Authentication:Provider must be one of Local, OpenId, Jwt, Saml (got "Kerberos")'),
    ]);
  });

  it('accepts a valid --config file from another folder, exit 0, and warns about the shipped defaults', async () => {
    const etc = folderWith({
      'appsettings.json': {
        Server: { Port: 9090, Host: '0.0.0.0' },
        Database: { DataDir: '/var/lib/realtime-config/data' },
        Authentication: { Provider: 'Local', Local: { DefaultAdminPassword: 'admin' } },
        Grpc: { RequireAuthentication: false },
      },
    });
    const result = await runServerCommand(['check-config', '--config', path.join(etc, 'appsettings.json')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The configuration is valid.');
    expect(result.stdout).toContain('http://0.0.0.0:9090');
    expect(result.stdout).toContain('/var/lib/realtime-config/data');
    expect(result.stderr).toContain('warning: Authentication:Local:DefaultAdminPassword');
    expect(result.stderr).toContain('warning: Grpc:RequireAuthentication is false while Server:Host is 0.0.0.0');
  });

  it('refuses a misspelled section or key, naming the known one it is closest to, in every source', async () => {
    const cwd = folderWith({
      'appsettings.json': {
        Authentcation: { Provider: 'Jwt' },
        Sever: { Port: 1 },
        Server: { Prot: 80 },
        Authorization: { Policies: { canAl: ['ops'] } },
      },
    });
    const file = path.join(cwd, 'appsettings.json');
    const result = await runServerCommand(
      ['check-config', '--Webhook:AllowPrivateNetworks=true', '--Authentication:Provider=Local'],
      {
        cwd,
        env: { Databse__Url: 'postgres://db.example.com/config' },
      },
    );
    expect(result.code).toBe(1);
    expect(problemsIn(result.stderr).sort()).toEqual(
      [
        `unknown section Authentcation (from ${file}); did you mean Authentication?`,
        `unknown section Sever (from ${file}); did you mean Server?`,
        `unknown key Server:Prot (from ${file}); did you mean Server:Port?`,
        `unknown key Authorization:Policies:canAl:0 (from ${file}); did you mean Authorization:Policies:canAll?`,
        'unknown key Webhook:AllowPrivateNetworks (from command-line argument --Webhook:AllowPrivateNetworks); did you mean Webhooks:AllowPrivateNetworks?',
      ].sort(),
    );
    // A variable may belong to another program: it is ignored, with a warning.
    expect(result.stderr).toContain('warning: environment variable Databse__Url is ignored: did you mean Database?');
  });

  it('refuses a file whose only fault is a misspelled section, which the server would otherwise ignore', async () => {
    // Read as written, the file would start the server with gRPC open to anyone.
    const cwd = folderWith({
      'appsettings.json': {
        Authentication: { Provider: 'Local', Local: { DefaultAdminPassword: 'a-password-for-tests' } },
        Grcp: { RequireAuthentication: true },
      },
    });
    const result = await runServerCommand(['check-config'], { cwd });
    expect(result.code).toBe(1);
    expect(problemsIn(result.stderr)).toEqual([
      `unknown section Grcp (from ${path.join(cwd, 'appsettings.json')}); did you mean Grpc?`,
    ]);
    // The server refuses to start on it as well.
    const serve = await runServerCommand(['--Server:Port=0'], { cwd });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('unknown section Grcp');
    expect(serve.stderr).toContain('did you mean Grpc?');
  });

  it("warns of another tool's section, which check-config and the server ignore", async () => {
    const cwd = folderWith({
      'appsettings.json': {
        AllowedHosts: '*',
        Serilog: { MinimumLevel: 'Information' },
        Authentication: { Provider: 'Local', Local: { DefaultAdminPassword: 'a-password-for-tests' } },
      },
    });
    const file = path.join(cwd, 'appsettings.json');
    const result = await runServerCommand(['check-config'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The configuration is valid.');
    for (const section of ['AllowedHosts', 'Serilog']) {
      expect(result.stderr).toContain(`warning: the section ${section} of ${file} is ignored: the server's are `);
    }
    const server = await startServerProcess({
      cwd,
      args: serverProcessArgs(await findFreePort(), ['--Database:DataDir=memory://']),
      until: 'listening',
    });
    expect(server.output()).toMatch(/"level":40,.*"msg":"configuration: the section AllowedHosts of .* is ignored/);
    await server.kill();
  });
});
