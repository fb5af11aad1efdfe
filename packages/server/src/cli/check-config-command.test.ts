import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServerCommand } from '@realtime-config/test-support/server-process';

const folders: string[] = [];
afterAll(() => {
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

describe('realtime-config-server check-config', () => {
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
});
