import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { startValidatorReceiver, type ValidatorReceiver } from '@realtime-config/test-support/validator-receiver';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

/** `realtime-config validate <file>`: a dry run for CI pipelines that prints every violation and exits 1 on any. */
describe('the CLI: validate', () => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: ValidatorReceiver;
  let user: CliUser;
  let serviceId: string;
  let versionId: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-validate-'));
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };
  const entries = async () => (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body;

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
    receiver = await startValidatorReceiver();
    serviceId = (await admin.post('/api/services', { name: 'payments' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    const base = `/api/configentries/${serviceId}/${versionId}`;
    await admin.post(base, { key: 'Payments:TimeoutSeconds', valueType: 6, rawValue: '30', schema: { maximum: 300 } });
    await admin.post(base, {
      key: 'Payments:Url',
      valueType: 1,
      rawValue: 'https://a',
      schema: { pattern: '^https://' },
    });
    user = new CliUser(server.baseUrl);
    expect((await user.run(['login', '--user', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`)).code).toBe(0);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it('exits 0 for a file that meets every schema, and changes nothing', async () => {
    const good = file('good.env', 'Payments__TimeoutSeconds=60\nPayments__Url=https://b\n');
    const res = await user.run(['validate', good, '--service', 'payments', '--version', '1.0']);
    expect(res.code, res.stderr).toBe(EXIT.ok);
    expect(res.stdout).toMatch(/^Valid: 2 changes/m);
    expect((await entries()).map((e: { rawValue: string }) => e.rawValue).sort()).toEqual(['30', 'https://a']);
  });

  it('prints every violation and exits 1', async () => {
    const bad = file('bad.json', JSON.stringify({ Payments: { TimeoutSeconds: 3000, Url: 'http://b' } }));
    const res = await user.run(['validate', bad, '-s', 'payments', '-v', '1.0']);
    expect(res.code, res.stderr).toBe(EXIT.failure);
    expect(res.stdout).toContain('Payments:TimeoutSeconds');
    expect(res.stdout).toContain('must be <= 300');
    expect(res.stdout).toContain('must match pattern "^https://"');
    expect(res.stdout).toMatch(/Invalid: 2 broken rule\(s\)/);

    const json = await user.run(['--json', 'validate', bad, '-s', 'payments', '-v', '1.0']);
    expect(json.code).toBe(EXIT.failure);
    const plan = JSON.parse(json.stdout);
    expect(plan.valid).toBe(false);
    expect(plan.applied).toBe(false);
    expect(plan.changes.flatMap((c: { violations: unknown[] }) => c.violations)).toHaveLength(2);
  });

  it('exits 1 when a validator of the service refuses, with its answer', async () => {
    const added = await admin.post(`/api/services/${serviceId}/validators`, { url: receiver.url });
    expect(added.status, added.text).toBe(201);
    receiver.decide(() => ({ status: 403, body: 'change freeze until Monday' }));
    const good = file('good.yaml', 'Payments:\n  TimeoutSeconds: 90\n');
    const res = await user.run(['validate', good, '-s', 'payments', '-v', '1.0']);
    expect(res.code, res.stderr).toBe(EXIT.failure);
    expect(res.stdout).toContain('change freeze until Monday');
    // The same refusal on a real import names the validator's answer too.
    const imported = await user.run(['import', 'payments', '1.0', good]);
    expect(imported.code).toBe(EXIT.rejected);
    expect(imported.stdout + imported.stderr).toContain('change freeze until Monday');
  });
});
