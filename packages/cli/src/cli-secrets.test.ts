import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

describe('the CLI and secret entries', () => {
  let server: TestServer;
  let admin: ApiClient;
  const SECRET = 'sk_live_cli_secret_value';

  const tokenOf = async (client: ApiClient) =>
    (await client.post('/api/auth/tokens', { name: 'cli', expiresAt: null })).body.token as string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    const serviceId = (await admin.post('/api/services', { name: 'vault' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body
      .id as string;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key: 'Payments:ApiKey',
      valueType: 1,
      rawValue: SECRET,
      isSecret: true,
    });
    await admin.post(`/api/services/${serviceId}/members`, { userId: 'cli-dev', role: 'editor' });
  });
  afterAll(() => server?.close());

  it('masks secrets in get, sets them, reveals them for canReveal users only, and rotates', async () => {
    const operator = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: await tokenOf(admin) });
    const listed = await operator.run(['get', 'vault', '1.0.0']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('•••••• (secret)');
    expect(listed.stdout).not.toContain(SECRET);
    // One key alone, as a script reads it: the same words, never an empty line that reads as no value.
    expect(await operator.run(['get', 'vault', '1.0.0', 'Payments:ApiKey'])).toMatchObject({
      code: 0,
      stdout: '•••••• (secret)\n',
    });

    const set = await operator.run(['set', 'vault', '1.0.0', 'Payments:ApiKey=sk_live_rotated']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('sk_live_rotated');
    const revealed = await operator.run(['reveal', 'vault', '1.0.0', 'Payments:ApiKey']);
    expect(revealed.code, revealed.stderr).toBe(0);
    expect(revealed.stdout.trim()).toBe('sk_live_rotated');

    const developer = await server.userWithRole('cli-dev', 'developer');
    const refused = await new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: await tokenOf(developer) }).run([
      'reveal',
      'vault',
      '1.0.0',
      'Payments:ApiKey',
    ]);
    expect(refused.code).toBe(EXIT.denied);
    expect(refused.stdout + refused.stderr).not.toContain('sk_live_rotated');

    const rotated = await operator.run(['--json', 'rotate-secrets']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({ rewrapped: 0 });
  });
});
