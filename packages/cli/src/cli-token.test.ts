import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKey, signToken, TestIssuer } from '@realtime-config/test-support/test-jwt-issuer';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

describe('the CLI with a Jwt provider: a token instead of a password', () => {
  let issuer: TestIssuer;
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    const key = await signingKey('cli-key');
    await issuer.publish(key);
    server = await startTestServer({
      args: [
        '--Authentication:Provider=Jwt',
        `--Authentication:Jwt:Authority=${issuer.authority}`,
        '--Authentication:Jwt:Audience=realtime-config',
        '--Authentication:Jwt:RequireHttpsMetadata=false',
        '--Authorization:RoleClaimTypes:0=groups',
        '--Authorization:Policies:canAll:0=platform-admins',
      ],
    });
    token = await signToken({ sub: 'ci-bot', groups: ['platform-admins'] }, { key, issuer: issuer.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  it('keeps a token given on stdin, privately, and uses it for every command', async () => {
    const user = new CliUser(server.baseUrl);
    const login = await user.run(['login', '--token-stdin'], `${token}\n`);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('as ci-bot');
    expect(login.stdout + login.stderr).not.toContain(token);
    const file = path.join(user.home, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(token);
    expect((await user.run(['services'])).code).toBe(0);
  });

  it('takes REALTIME_CONFIG_TOKEN without a login, and says when a token is refused', async () => {
    const pipeline = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: token });
    const me = await pipeline.run(['--json', 'whoami']);
    expect(JSON.parse(me.stdout)).toMatchObject({ id: 'ci-bot', policies: expect.arrayContaining(['canAll']) });

    const forged = new CliUser(server.baseUrl, { REALTIME_CONFIG_TOKEN: `${token.slice(0, -4)}AAAA` });
    const refused = await forged.run(['services']);
    expect(refused.code).toBe(EXIT.denied);
    const badLogin = await new CliUser(server.baseUrl).run(['login', '--token-stdin'], 'not-a-token\n');
    expect(badLogin.code).toBe(EXIT.denied);
  });
});
