import type { Entry } from '@realtime-config/protocol/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

/*
 * Rollouts from the command line, against a real server. No test waits for a step's time: steps are
 * an hour apart, and every move the tests see is one they ask for (pause, resume, promote, roll back).
 */
describe.each(oneDatabaseKind)('the CLI and rollouts on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let operator: CliUser;
  const ids: Record<string, string> = {};
  const at = ['-s', 'shop', '-v', '1.0'];
  const slowly = ['--steps', '10,50,100', '--step', '1h', '--bake', '5m'];

  const valueOf = async (label: string, key: string) =>
    ((await admin.get(`/api/configentries/${ids.shop}/${ids[label]}`)).body as Entry[]).find((e) => e.key === key)
      ?.rawValue;
  const tokenOf = async (client: ApiClient) =>
    (await client.post('/api/auth/tokens', { name: 'cli', expiresAt: null })).body.token as string;
  const rollouts = async () =>
    JSON.parse((await operator.run(['--json', 'rollout', 'status', ...at])).stdout) as Array<{ id: string }>;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    ids.shop = (await admin.post('/api/services', { name: 'shop' })).body.id as string;
    for (const label of ['1.0', '2.0']) {
      ids[label] = (await admin.post(`/api/configversions/${ids.shop}`, { versionLabel: label })).body.id as string;
      const base = `/api/configentries/${ids.shop}/${ids[label]}`;
      await admin.post(base, { key: 'Timeout', valueType: 6, rawValue: '30' });
      await admin.post(base, { key: 'Mode', valueType: 1, rawValue: 'old' });
    }
    operator = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: await tokenOf(admin) });
  });
  afterAll(() => server?.close());

  it('starts a rollout at its first step, pauses, resumes and rolls it back with the reason', async () => {
    const started = await operator.run(['rollout', 'start', ...at, 'Timeout=45', 'mode=new', ...slowly]);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/running at 10 % \(step 1 of 3\); next step \(50 %\) at \S+Z/);
    expect(started.stdout).toContain('Timeout → 45');
    const [{ id } = { id: '' }] = await rollouts();

    const list = await operator.run(['rollout', 'status', ...at]);
    expect(list.stdout).toMatch(new RegExp(`\\*\\s+${id}\\s+running\\s+10 %\\s+Timeout, Mode`));
    const one = await operator.run(['rollout', 'status', ...at, id]);
    expect(one.stdout).toMatch(/1\s+10 %\s+now \(since /);
    expect(one.stdout).toMatch(/2\s+50 %\s+at \S+Z/);
    expect(one.stdout).toContain('Steps 1h apart, then 5m at 100 %');
    // The keys are the rollout's until it ends; the server's refusal names it.
    const set = await operator.run(['set', 'shop', '1.0', 'Timeout=60']);
    expect(set.code).toBe(EXIT.conflict);
    expect(set.stderr).toContain(`rollout ${id}`);
    // Reading again would not help: the message says how to see the rollout instead.
    expect(set.stderr).toContain(`realtime-config rollout status -s <service> -v <version> ${id}`);
    expect(set.stderr).not.toContain('Read it again');

    const paused = await operator.run(['rollout', 'pause', ...at, id]);
    expect(paused.stdout).toContain('paused at 10 % (step 1 of 3)');
    expect((await operator.run(['rollout', 'status', ...at, id])).stdout).toMatch(/2\s+50 %\s+waits for resume/);
    const again = await operator.run(['rollout', 'pause', ...at, id]);
    expect(again.code).toBe(EXIT.conflict);
    expect(again.stderr).toContain(`Rollout ${id} is paused: it cannot be paused.`);
    expect(again.stderr).toContain(`realtime-config rollout status -s shop -v 1.0 ${id}`);
    expect((await operator.run(['rollout', 'resume', ...at, id])).stdout).toContain('running at 10 %');

    const back = await operator.run(['--json', 'rollout', 'rollback', ...at, id]);
    expect(JSON.parse(back.stdout)).toMatchObject({ id, status: 'rolled_back', reason: 'rolled back by admin' });
    const ended = await operator.run(['rollout', 'status', ...at, id]);
    expect(ended.stdout).toContain('rolled back (rolled back by admin)');
    expect(ended.stdout).toMatch(/1\s+10 %\s+rolled back here/);
    expect((await operator.run(['rollout', 'status', ...at])).stdout).not.toMatch(/^\*/m);
    expect(await valueOf('1.0', 'Timeout')).toBe('30');
  });

  it('refuses a value of the wrong type, an unknown key and bad settings, and starts nothing', async () => {
    const before = (await rollouts()).length;
    const wrongType = await operator.run(['rollout', 'start', ...at, 'Timeout=soon', ...slowly]);
    expect(wrongType.code).toBe(EXIT.rejected);
    expect(wrongType.stderr).toContain('Timeout must be a decimal number');
    const unknown = await operator.run(['rollout', 'start', ...at, 'No:Such=1', ...slowly]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toContain('No such key in this version: No:Such');
    const notToHundred = await operator.run([
      'rollout',
      'start',
      ...at,
      'Timeout=45',
      '--steps',
      '10,50',
      '--step',
      '1h',
    ]);
    expect(notToHundred.code).toBe(EXIT.rejected);
    expect(notToHundred.stderr).toContain('--steps: must end at 100');
    const tooLong = await operator.run(['rollout', 'start', ...at, 'Timeout=45', '--steps', '100', '--step', '2d']);
    expect(tooLong.stderr).toContain('--step: must be <= 86400');
    for (const bad of [
      ['--steps', 'ten,100', '--step', '1h'],
      ['--steps', '10,100', '--step', '5 minutes'],
      ['--steps', '10,100'],
    ]) {
      expect((await operator.run(['rollout', 'start', ...at, 'Timeout=45', ...bad])).code).toBe(EXIT.usage);
    }
    expect(await rollouts()).toHaveLength(before);
    expect(await valueOf('1.0', 'Timeout')).toBe('30');
  });

  it('promotes a rollout to completed, after which get shows the new value; an alarm rolls one back', async () => {
    const started = await operator.run(['--json', 'rollout', 'start', ...at, 'Timeout=90', ...slowly]);
    const { id } = JSON.parse(started.stdout) as { id: string };
    const promoted = await operator.run(['rollout', 'promote', ...at, id]);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('completed: the new values are the values (promoted by admin)');
    expect((await operator.run(['get', 'shop', '1.0', 'Timeout'])).stdout).toBe('90\n');
    expect((await operator.run(['rollout', 'status', ...at, id])).stdout).toMatch(/2\s+50 %\s+not taken/);

    // Monitoring with a service API key (write scope) raises the alarm.
    const key = (await admin.post(`/api/services/${ids.shop}/apikeys`, { name: 'monitor', scopes: ['read', 'write'] }))
      .body.key as string;
    const monitor = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: key });
    const next = JSON.parse(
      (await operator.run(['--json', 'rollout', 'start', ...at, 'Mode=fast', ...slowly, '--match', 'region=eu']))
        .stdout,
    ) as { id: string; match: unknown };
    expect(next.match).toEqual({ labels: { region: 'eu' } });
    const alarm = await monitor.run(['rollout', 'alarm', ...at, next.id, '--reason', 'error rate above 2 %']);
    expect(alarm.code, alarm.stderr).toBe(0);
    expect(alarm.stdout).toContain('rolled back (alarm: error rate above 2 %)');
    expect(await valueOf('1.0', 'Mode')).toBe('old');
  });

  it('rolls out on a protected version only through an approved change request', async () => {
    await admin.put(`/api/configversions/${ids.shop}/${ids['2.0']}`, { versionLabel: '2.0', protected: true });
    const dev = await server.userWithRole('dev', 'developer');
    await admin.post(`/api/services/${ids.shop}/members`, { userId: 'dev', role: 'editor' });
    const author = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: await tokenOf(dev) });
    const v2 = ['-s', 'shop', '-v', '2.0'];

    const direct = await author.run(['rollout', 'start', ...v2, 'Timeout=45', ...slowly]);
    expect(direct.code).toBe(EXIT.conflict);
    expect(direct.stderr).toContain('review apply');
    const opened = await author.run(['--json', 'set', 'shop', '2.0', 'Timeout=45', '--request-review', 'Longer']);
    const { id } = JSON.parse(opened.stdout) as { id: string };
    expect((await operator.run(['review', 'approve', 'shop', '2.0', id])).code).toBe(0);
    const noStep = await author.run(['review', 'apply', 'shop', '2.0', id, '--steps', '10,100']);
    expect(noStep.code).toBe(EXIT.usage);
    const applied = await author.run(['review', 'apply', 'shop', '2.0', id, '--steps', '10,100', '--step', '1h']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('being rolled out');
    const status = await author.run(['rollout', 'status', ...v2]);
    expect(status.stdout).toMatch(/\*\s+\S+\s+running\s+10 %\s+Timeout/);
    // The request names the rollout it started, and so does the message.
    const rolloutId = (status.stdout.match(/\*\s+(\S+)\s+running/) ?? [])[1] as string;
    expect(applied.stdout).toContain(`rollout status -s shop -v 2.0 ${rolloutId}`);
    const request = await author.run(['--json', 'review', 'show', 'shop', '2.0', id]);
    expect(JSON.parse(request.stdout)).toMatchObject({ status: 'applied', rolloutId });
    expect(await valueOf('2.0', 'Timeout')).toBe('30');
  });
});
