import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Entry } from '@realtime-config/protocol/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type ApiClient,
  type TestServer,
} from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser, completion, waitForOutput } from './test-support/run-cli.js';

/*
 * The CLI is a client of the REST API: what it does does not depend on the server's storage, whose
 * queries the server's own suites run on both databases.
 */
describe.each(oneDatabaseKind)('the realtime-config CLI (built binary) on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let user: CliUser;
  let serviceId: string;
  const versionIds: Record<string, string> = {};

  const entries = async (label: string): Promise<Entry[]> =>
    (await admin.get(`/api/configentries/${serviceId}/${versionIds[label]}`)).body as Entry[];
  const valueOf = async (label: string, key: string) => (await entries(label)).find((e) => e.key === key)?.rawValue;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'payments' })).body.id;
    for (const label of ['1.0', '1.1']) {
      versionIds[label] = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label })).body.id;
      const base = `/api/configentries/${serviceId}/${versionIds[label]}`;
      await admin.post(base, { key: 'Payments:TimeoutSeconds', valueType: 6, rawValue: '30' });
      await admin.post(base, { key: 'Payments:Provider', valueType: 1, rawValue: 'Stripe' });
      await admin.post(base, { key: 'Payments:Limits', valueType: 8, rawValue: '{"max":1}' });
    }
    user = new CliUser(server.baseUrl);
  });
  afterAll(async () => server?.close());

  it('signs in with Local credentials into a file only its owner can read, and never prints a secret', async () => {
    const wrong = await user.run(['login', '--user', 'admin', '--password-stdin'], 'not-the-password\n');
    expect(wrong.code).toBe(EXIT.denied);
    expect(wrong.stderr).toContain('error:');

    const login = await user.run(['login', '--user', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('Signed in');
    const file = path.join(user.home, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(user.home).mode & 0o777).toBe(0o700);
    const cookie = JSON.parse(readFileSync(file, 'utf8')).cookie as string;
    expect(cookie).toMatch(/^rc_session=/);
    for (const output of [login.stdout, login.stderr, wrong.stdout, wrong.stderr]) {
      expect(output).not.toContain(ADMIN_PASSWORD);
      expect(output).not.toContain(cookie.slice('rc_session='.length));
    }
    const me = await user.run(['--json', 'whoami']);
    expect(JSON.parse(me.stdout)).toMatchObject({ id: 'admin', policies: expect.arrayContaining(['canAll']) });
    // For people, the console's words for the permissions, not the policy names of the configuration.
    const said = await user.run(['whoami']);
    expect(said.stdout).toContain('may: Administer, Change values');
    expect(`${login.stdout}${said.stdout}`).not.toMatch(/\bcan(All|Change|Reveal)\b/);
  });

  it('lists services and versions, and reads values by service name and version label', async () => {
    const services = JSON.parse((await user.run(['--json', 'services'])).stdout) as Array<{ name: string }>;
    expect(services.map((s) => s.name)).toContain('payments');
    const versions = await user.run(['versions', 'payments']);
    expect(versions.stdout).toMatch(/1\.0[\s\S]*1\.1/);
    const one = await user.run(['get', 'payments', '1.0', 'payments:timeoutseconds']);
    expect(one).toMatchObject({ code: 0, stdout: '30\n' });
    const byId = JSON.parse((await user.run(['--json', 'get', serviceId, versionIds['1.0'] as string])).stdout);
    expect(byId).toHaveLength(3);
    expect((await user.run(['get', 'payments', '9.9'])).code).toBe(EXIT.notFound);
    expect((await user.run(['get', 'payments', '1.0', 'No:Such:Key'])).code).toBe(EXIT.notFound);
  });

  it('sets several values in one batch; a stale generation or a bad value changes nothing', async () => {
    const set = await user.run([
      '--json',
      'set',
      'payments',
      '1.0',
      'Payments:TimeoutSeconds=45',
      'Payments:Provider=a=b "c"\nd',
    ]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toHaveLength(2);
    expect(await valueOf('1.0', 'Payments:Provider')).toBe('a=b "c"\nd');

    const stale = await user.run([
      'set',
      'payments',
      '1.0',
      'Payments:TimeoutSeconds=46',
      '--if-generation',
      'Payments:TimeoutSeconds=1',
    ]);
    expect(stale.code).toBe(EXIT.conflict);
    expect(stale.stderr).toContain('Generation mismatch');
    const bad = await user.run([
      'set',
      'payments',
      '1.0',
      'Payments:TimeoutSeconds=46',
      'Payments:Provider=x',
      'Payments:Limits=[1]',
    ]);
    expect(bad.code).toBe(EXIT.rejected);
    expect(bad.stderr).toContain('Payments:Limits');
    // Each refused value is named by its key, not by its place in the request.
    expect(bad.stderr).toMatch(/^ {2}Payments:Limits must be/m);
    expect(bad.stderr).not.toContain('rawValue');
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('45');
    expect(await valueOf('1.0', 'Payments:Provider')).toBe('a=b "c"\nd');
  });

  it('shows a key’s history and undoes a bad change with one restore command', async () => {
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await user.run(['set', 'payments', '1.0', 'Payments:TimeoutSeconds=999'])).code).toBe(0);

    const history = JSON.parse(
      (await user.run(['--json', 'history', 'payments', '1.0', 'Payments:TimeoutSeconds'])).stdout,
    );
    expect(history.map((h: { value: string }) => h.value).slice(0, 2)).toEqual(['999', '45']);
    // For people, the console's words for each change (the JSON above keeps the API's ValueSet).
    const said = await user.run(['history', 'payments', '1.0', 'Payments:TimeoutSeconds']);
    expect(said.stdout).toContain('value set');
    expect(said.stdout).not.toContain('ValueSet');

    const dry = await user.run(['--json', 'restore', 'payments', '1.0', '--at', before, '--dry-run']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ applied: false, changes: [{ key: 'Payments:TimeoutSeconds' }] });
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('999');

    const restored = await user.run(['restore', 'payments', '1.0', '--at', before]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('Applied 1 change');
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('45');
    expect((await user.run(['restore', 'payments', '1.0', '--at', 'yesterday'])).code).toBe(EXIT.rejected);
  });

  it('shows the history of a key deleted since, of its own version only', async () => {
    const created: Record<string, string> = {};
    for (const [label, value] of [
      ['1.1', 'other'],
      ['1.0', 'old'],
    ] as const) {
      const base = `/api/configentries/${serviceId}/${versionIds[label]}`;
      created[label] = (await admin.post(base, { key: 'Payments:Legacy', valueType: 1, rawValue: value })).body.id;
    }
    expect((await user.run(['set', 'payments', '1.0', 'Payments:Legacy=older'])).code).toBe(0);
    for (const label of ['1.0', '1.1']) {
      expect(
        (await admin.delete(`/api/configentries/${serviceId}/${versionIds[label]}/${created[label]}`)).status,
      ).toBe(204);
    }
    const history = async (label: string) => {
      const run = await user.run(['--json', 'history', 'payments', label, 'payments:legacy']);
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout) as Array<{ action: string; value: string | null }>).map((h) => [
        h.action,
        h.value,
      ]);
    };
    expect(await history('1.0')).toEqual([
      ['Deleted', null],
      ['ValueSet', 'older'],
      ['Created', 'old'],
    ]);
    expect(await history('1.1')).toEqual([
      ['Deleted', null],
      ['Created', 'other'],
    ]);
    const unknown = await user.run(['history', 'payments', '1.0', 'Payments:Never']);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toContain('now or in its history');
  });

  it('round-trips a version through YAML, imports a changed file after a dry run, and refuses a bad value', async () => {
    const file = path.join(user.home, 'payments.yaml');
    expect((await user.run(['export', 'payments', '1.0', '--format', 'yaml', '-o', file])).code).toBe(0);
    const unchanged = await user.run(['--json', 'import', 'payments', '1.0', file]);
    expect(JSON.parse(unchanged.stdout)).toMatchObject({ changes: [] });

    writeFileSync(file, readFileSync(file, 'utf8').replace('TimeoutSeconds: 45', 'TimeoutSeconds: 60'));
    const dry = await user.run(['import', 'payments', '1.0', file, '--dry-run']);
    expect(dry.stdout).toMatch(/set\s+Payments:TimeoutSeconds\s+45\s+60/);
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('45');
    expect((await user.run(['import', 'payments', '1.0', file])).code).toBe(0);
    expect(await valueOf('1.0', 'Payments:TimeoutSeconds')).toBe('60');

    const bad = path.join(user.home, 'bad.env');
    writeFileSync(bad, 'Payments__TimeoutSeconds=sixty\nPayments__Provider=Adyen\n');
    const refused = await user.run(['import', 'payments', '1.0', bad]);
    expect(refused.code).toBe(EXIT.rejected);
    expect(refused.stderr).toContain('Payments:TimeoutSeconds');
    expect(await valueOf('1.0', 'Payments:Provider')).toBe('a=b "c"\nd');

    // The file's bytes reach the server as they are: not UTF-8 is refused, not turned into U+FFFD.
    writeFileSync(bad, Buffer.concat([Buffer.from('Payments__Provider=caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const latin1 = await user.run(['import', 'payments', '1.0', bad]);
    expect(latin1.code).toBe(EXIT.rejected);
    expect(latin1.stderr).toContain('UTF-8');
    expect(await valueOf('1.0', 'Payments:Provider')).toBe('a=b "c"\nd');
  });

  it('compares two versions and promotes reviewed values from 1.0 to 1.1', async () => {
    const diff = await user.run(['--json', 'diff', 'payments', '1.0', '1.1']);
    const keys = JSON.parse(diff.stdout).differences.map((d: { key: string }) => d.key);
    expect(keys).toEqual(expect.arrayContaining(['Payments:TimeoutSeconds', 'Payments:Provider']));
    expect((await user.run(['diff', 'payments', '1.0', '1.1', '--exit-code'])).code).toBe(1);
    const limits = (await entries('1.1')).find((e) => e.key === 'Payments:Limits') as Entry;
    const described = await admin.put(`/api/configentries/${serviceId}/${versionIds['1.1']}/${limits.id}`, {
      name: 'Limits',
      description: 'Caps per merchant',
      groupName: 'Payments',
      groupDescription: null,
      enumDefinition: null,
      rawValue: limits.rawValue,
      generation: limits.generation,
    });
    expect(described.status).toBe(200);
    const text = (await user.run(['diff', 'payments', '1.0', '1.1'])).stdout;
    expect(text).toMatch(/value differs\s+Payments:Provider\s+a=b "c"\\nd \(String\)\s+Stripe \(String\)\s+value\n/);
    expect(text).toMatch(
      /details differ\s+Payments:Limits\s+\{"max":1\} \(Json\)\s+\{"max":1\} \(Json\)\s+name, description, group\n/,
    );
    expect(text).not.toMatch(/valueChanged|metadataChanged/);

    const dry = await user.run(['promote', 'payments', '1.0', '1.1', '--keys', 'Payments:TimeoutSeconds', '--dry-run']);
    expect(dry.stdout).toContain('Dry run');
    expect(await valueOf('1.1', 'Payments:TimeoutSeconds')).toBe('30');
    expect((await user.run(['promote', 'payments', '1.0', '1.1', '--keys', 'Payments:TimeoutSeconds'])).code).toBe(0);
    expect(await valueOf('1.1', 'Payments:TimeoutSeconds')).toBe('60');
    expect(await valueOf('1.1', 'Payments:Provider')).toBe('Stripe');
  });

  it('watches live changes as JSON lines and ends cleanly on SIGINT', async () => {
    const watcher = user.spawn(['--json', 'watch', 'payments', '1.1']);
    const done = completion(watcher);
    await waitForOutput(watcher, 'Watching payments 1.1');
    const provider = (await entries('1.1')).find((e) => e.key === 'Payments:Provider');
    const changed = await admin.put(`/api/configentries/${serviceId}/${versionIds['1.1']}/set`, [
      { id: provider?.id, rawValue: 'Adyen', generation: provider?.generation },
    ]);
    expect(changed.status).toBe(200);
    await waitForOutput(watcher, 'Adyen');
    watcher.kill('SIGINT');
    const result = await done;
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ key: 'Payments:Provider', value: 'Adyen', generation: 2 })]);
  });

  it('answers usage errors with exit code 2 and help, and refuses when signed out', async () => {
    const usage = await user.run(['set', 'payments']);
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.stderr).toContain('--help');
    expect((await user.run(['set', 'payments', '1.0', 'no-equals-sign'])).code).toBe(EXIT.usage);
    const help = await user.run(['restore', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--at <time>');

    expect((await user.run(['logout'])).code).toBe(0);
    const denied = await user.run(['services']);
    expect(denied.code).toBe(EXIT.denied);
    expect(denied.stderr).toContain('realtime-config login');
  });
});
