import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

describe('the CLI and overrides by label', () => {
  let server: TestServer;
  let admin: ApiClient;
  let operator: CliUser;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    const serviceId = (await admin.post('/api/services', { name: 'fleet' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body
      .id as string;
    await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key: 'Timeout', valueType: 6, rawValue: '30' });
    const token = (await admin.post('/api/auth/tokens', { name: 'cli', expiresAt: null })).body.token as string;
    operator = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: token });
  });
  afterAll(() => server?.close());

  it('sets and shows overrides, and resolves what instances with given labels get', async () => {
    const set = await operator.run(['overrides', 'set', 'fleet', '1.0.0', 'Timeout', 'region=eu=>45', 'tier=gold=>60']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('2 override(s) (generation 2)');
    const shown = await operator.run(['overrides', 'get', 'fleet', '1.0.0', 'Timeout']);
    expect(shown.stdout).toMatch(/1\s+region=eu\s+45/);
    expect(shown.stdout).toMatch(/2\s+tier=gold\s+60/);

    const resolved = await operator.run(['--json', 'resolve', 'fleet', '1.0.0', '--labels', 'tier=gold']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout).entries).toEqual([
      expect.objectContaining({ key: 'Timeout', rawValue: '60', source: 'override', overrideIndex: 1 }),
    ]);
    const plain = await operator.run(['resolve', 'fleet', '1.0.0']);
    expect(plain.stdout).toMatch(/Timeout\s+30\s+value\s+2/);

    const stale = await operator.run(['overrides', 'set', 'fleet', '1.0.0', 'Timeout', '--if-generation', '1']);
    expect(stale.code).toBe(EXIT.conflict);
    const bad = await operator.run(['overrides', 'set', 'fleet', '1.0.0', 'Timeout', 'region=eu']);
    expect(bad.code).toBe(EXIT.usage);
  });
});
