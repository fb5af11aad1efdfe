import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { CLI_BIN, CliUser, completion } from './test-support/run-cli.js';

const mode = (file: string) => statSync(file).mode & 0o777;

/**
 * Where `login` keeps its credentials and with which modes. The file is the CLI's own, whatever the
 * database behind the server, so one (SQLite) is enough.
 */
describe('the credentials file of realtime-config login', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ kind: 'sqlite' });
  });
  afterAll(() => server?.close());

  /** `login` as admin with `REALTIME_CONFIG_HOME=home`, under the umask given. */
  const login = async (home: string, umask: string) => {
    const user = new CliUser(server.baseUrl, { REALTIME_CONFIG_HOME: home });
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        `umask ${umask} && exec "$0" "$@"`,
        process.execPath,
        CLI_BIN,
        'login',
        '--user',
        'admin',
        '--password-stdin',
      ],
      { env: user.env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end(`${ADMIN_PASSWORD}\n`);
    const result = await completion(child);
    expect(result.code, result.stderr).toBe(0);
    return user;
  };

  it('leaves the mode of a folder that already exists, such as a shared one, and writes the file 0600', async () => {
    const shared = mkdtempSync(path.join(tmpdir(), 'rc-cli-shared-'));
    chmodSync(shared, 0o755);
    const user = await login(shared, '022');
    expect(mode(shared)).toBe(0o755);
    expect(mode(path.join(shared, 'credentials.json'))).toBe(0o600);
    // Signed in again, the file is replaced whole, with the same mode, and nothing is left beside it.
    await login(shared, '000');
    expect(mode(path.join(shared, 'credentials.json'))).toBe(0o600);
    expect(readdirSync(shared)).toEqual(['credentials.json']);
    expect(mode(shared)).toBe(0o755);
    expect((await user.run(['--json', 'whoami'])).code).toBe(0);
  });

  it.each(['000', '022', '277'])(
    'makes the folders it creates 0700 under the umask %s, and only those',
    async (umask) => {
      const parent = mkdtempSync(path.join(tmpdir(), 'rc-cli-parent-'));
      chmodSync(parent, 0o755);
      const home = path.join(parent, 'config', 'realtime-config');
      await login(home, umask);
      expect(mode(parent)).toBe(0o755);
      expect(mode(path.join(parent, 'config'))).toBe(0o700);
      expect(mode(home)).toBe(0o700);
      expect(mode(path.join(home, 'credentials.json'))).toBe(0o600);
      // Once it exists, the folder is the user's: opened up since, it is left as it is.
      chmodSync(home, 0o750);
      await login(home, umask);
      expect(mode(home)).toBe(0o750);
      expect(mode(path.join(home, 'credentials.json'))).toBe(0o600);
    },
  );
});
