import type { Entry } from '@realtime-config/protocol/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

/**
 * The CLI as a CI pipeline runs it: a fresh home without any login, only REALTIME_CONFIG_URL and
 * REALTIME_CONFIG_TOKEN (a scoped service key or a personal token), with the default Local provider.
 */
describe('the CLI in a pipeline, with no person’s password', () => {
  let server: TestServer;
  let admin: ApiClient;
  const ids: Record<string, string> = {};

  const valueOf = async (label: string, key: string) =>
    ((await admin.get(`/api/configentries/${ids.payments}/${ids[label]}`)).body as Entry[]).find((e) => e.key === key)
      ?.rawValue;
  const keyOf = async (scopes: string[]) =>
    (await admin.post(`/api/services/${ids.payments}/apikeys`, { name: scopes.join('+'), scopes })).body.key as string;
  const pipeline = (token: string) => new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: token });

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    for (const name of ['payments', 'billing']) {
      ids[name] = (await admin.post('/api/services', { name })).body.id;
    }
    for (const label of ['1.0', '1.1']) {
      ids[label] = (await admin.post(`/api/configversions/${ids.payments}`, { versionLabel: label })).body.id;
      const base = `/api/configentries/${ids.payments}/${ids[label]}`;
      await admin.post(base, { key: 'Payments:TimeoutSeconds', valueType: 6, rawValue: label === '1.0' ? '30' : '60' });
      await admin.post(base, { key: 'Payments:Provider', valueType: 1, rawValue: 'Stripe' });
    }
    ids.billing10 = (await admin.post(`/api/configversions/${ids.billing}`, { versionLabel: '1.0' })).body.id;
  });
  afterAll(async () => server?.close());

  it('exports, diffs and sets values with a read+write key; a read key reads and is refused a set', async () => {
    const writer = pipeline(await keyOf(['read', 'write']));
    const me = await writer.run(['--json', 'whoami']);
    expect(JSON.parse(me.stdout)).toEqual({ apiKeyOf: { id: ids.payments, name: 'payments' } });

    const exported = await writer.run(['export', 'payments', '1.0', '--format', 'yaml']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('TimeoutSeconds');
    const diff = await writer.run(['diff', 'payments', '1.0', '1.1', '--exit-code']);
    expect(diff.code).toBe(EXIT.failure);
    expect(diff.stdout).toMatch(/Payments:TimeoutSeconds[\s\S]*1 differing/);

    const set = await writer.run(['set', 'payments', '1.0', 'Payments:TimeoutSeconds=45']);
    expect(set).toMatchObject({ code: 0, stdout: expect.stringContaining('Payments:TimeoutSeconds = 45') });
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('45');

    const reader = pipeline(await keyOf(['read']));
    expect(await reader.run(['get', 'payments', '1.0', 'Payments:TimeoutSeconds'])).toMatchObject({
      code: 0,
      stdout: '45\n',
    });
    const refused = await reader.run(['set', 'payments', '1.0', 'Payments:TimeoutSeconds=99']);
    expect(refused.code).toBe(EXIT.denied);
    expect(refused.stderr).toContain('error:');
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('45');

    // Its own service only: another one's version by id is refused, and its list shows only its own.
    expect((await writer.run(['get', ids.billing as string, ids.billing10 as string])).code).toBe(EXIT.denied);
    const services = JSON.parse((await writer.run(['--json', 'services'])).stdout) as Array<{ name: string }>;
    expect(services.map((s) => s.name)).toEqual(['payments']);
  });

  it('makes, lists and revokes a personal token; a protected version changes only after a second person approves', async () => {
    await server.userWithRole('dev', 'developer');
    await admin.post(`/api/services/${ids.payments}/members`, { userId: 'dev', role: 'editor' });
    const devLogin = new CliUser(server.baseUrl);
    expect((await devLogin.run(['login', '--user', 'dev', '--password-stdin'], 'dev-password-for-tests\n')).code).toBe(
      0,
    );
    const created = await devLogin.run(['--json', 'token', 'create', 'deploy', '--expires', '7d']);
    expect(created.code).toBe(0);
    const { id: tokenId, token } = JSON.parse(created.stdout) as { id: string; token: string };
    expect(token).toMatch(/^rcp_/);
    const listed = await devLogin.run(['token', 'list']);
    expect(listed.stdout).toContain('deploy');
    expect(listed.stdout).not.toContain(token);

    const dev = pipeline(token);
    expect(JSON.parse((await dev.run(['--json', 'whoami'])).stdout)).toMatchObject({ id: 'dev' });
    expect((await dev.run(['set', 'payments', '1.1', 'Payments:Provider=Adyen'])).code).toBe(0);

    expect((await admin.put(`/api/configversions/${ids.payments}/${ids['1.1']}`, { protected: true })).status).toBe(
      200,
    );
    const direct = await dev.run(['set', 'payments', '1.1', 'Payments:Provider=Mollie']);
    expect(direct.code).toBe(EXIT.conflict);
    expect(direct.stderr).toContain('--request-review');
    const opened = await dev.run([
      '--json',
      'set',
      'payments',
      '1.1',
      'Payments:Provider=Mollie',
      '--request-review',
      'Switch to Mollie',
    ]);
    expect(opened.code).toBe(0);
    const request = JSON.parse(opened.stdout) as { id: string; status: string };
    expect(request.status).toBe('open');
    expect(await valueOf('1.1', 'Payments:Provider')).toBe('Adyen');

    expect((await dev.run(['review', 'approve', 'payments', '1.1', request.id])).code).toBe(EXIT.denied);
    const early = await dev.run(['review', 'apply', 'payments', '1.1', request.id]);
    expect(early.code).toBe(EXIT.conflict);
    // The server says what is missing; reading the request again would not help.
    expect(early.stderr).toContain('approval');
    expect(early.stderr).not.toContain('Read it again');
    const adminCli = new CliUser(server.baseUrl);
    await adminCli.run(['login', '--user', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`);
    const shown = await adminCli.run(['review', 'show', 'payments', '1.1', request.id]);
    expect(shown.stdout).toMatch(/Payments:Provider\s+Adyen\s+Mollie/);
    expect((await adminCli.run(['review', 'approve', 'payments', '1.1', request.id])).stdout).toContain('approved');
    expect((await dev.run(['review', 'apply', 'payments', '1.1', request.id])).stdout).toContain('applied');
    expect(await valueOf('1.1', 'Payments:Provider')).toBe('Mollie');
    const list = await dev.run(['review', 'list', 'payments', '1.1', '--status', 'applied']);
    expect(list.stdout).toContain('Switch to Mollie');

    // Promote's plan becomes the change request's changes.
    const promote = await dev.run(['promote', 'payments', '1.0', '1.1', '--request-review', 'Promote']);
    expect(promote.code).toBe(0);
    const promoted = JSON.parse(
      (await dev.run(['--json', 'review', 'list', 'payments', '1.1', '--status', 'open'])).stdout,
    ) as Array<{ title: string; changes: Array<{ key: string; rawValue: string }> }>;
    expect(promoted[0]).toMatchObject({ title: 'Promote' });
    expect(promoted[0]?.changes.map((c) => [c.key, c.rawValue]).sort()).toEqual([
      ['Payments:Provider', 'Stripe'],
      ['Payments:TimeoutSeconds', '45'],
    ]);

    expect((await devLogin.run(['token', 'revoke', tokenId])).code).toBe(0);
    expect((await dev.run(['services'])).code).toBe(EXIT.denied);
  });
});
