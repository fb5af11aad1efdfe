import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '@realtime-config/test-support/cookie-browser';
import {
  OIDC_CLIENT_ID as CLIENT_ID,
  OIDC_CLIENT_SECRET as CLIENT_SECRET,
  TestOidcProvider,
  followToCallback,
} from '@realtime-config/test-support/test-oidc-provider';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

const ACCOUNTS: Readonly<Record<string, Record<string, unknown>>> = {
  alice: { email: 'alice@example.com', name: 'Alice Admin', groups: ['admin', 'staff'] },
  bob: { email: 'bob@example.com', name: 'Bob Developer', groups: ['developer'] },
  carol: { email: 'carol@example.com', name: 'Carol Nobody', groups: [] },
};

const SESSION = 'rc_session';

describe.each(oneDatabaseKind)('OpenId provider on %s', (kind) => {
  let idp: TestOidcProvider;
  let server: TestServer;
  let app: string;

  beforeAll(async () => {
    idp = await TestOidcProvider.start(ACCOUNTS);
    server = await startTestServer({
      kind,
      args: [
        '--Authentication:Provider=OpenId',
        `--Authentication:OpenId:Authority=${idp.issuer}`,
        `--Authentication:OpenId:ClientId=${CLIENT_ID}`,
        `--Authentication:OpenId:ClientSecret=${CLIENT_SECRET}`,
        '--Authentication:OpenId:RequireHttpsMetadata=false',
        '--Authentication:OpenId:Scope:0=openid',
        '--Authentication:OpenId:Scope:1=email',
        '--Authentication:OpenId:Scope:2=profile',
        '--Authentication:OpenId:Scope:3=groups',
        '--Authentication:RoleClaimType=groups',
        // As docs/auth/openid.md advises: `name` is editable by users at many providers, so no role claim.
        '--Authorization:RoleClaimTypes=role,roles,groups',
      ],
    });
    app = server.baseUrl;
    idp.registerClient(app);
  });

  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  /** Starts a sign-in at the app and drives the provider's login and consent forms up to the callback. */
  async function callbackUrlFor(browser: Browser, account: string, returnUrl?: string): Promise<string> {
    const query = returnUrl === undefined ? '' : `?returnUrl=${encodeURIComponent(returnUrl)}`;
    const start = await browser.get(`${app}/auth/login${query}`);
    expect(start.status).toBe(302);
    return followToCallback(browser, app, start.location ?? '', account);
  }

  /** A full sign-in; returns the app's final redirect target. */
  async function signIn(browser: Browser, account: string, returnUrl?: string): Promise<string> {
    const callback = await callbackUrlFor(browser, account, returnUrl);
    const done = await browser.get(callback);
    expect(done.status, done.text).toBe(302);
    return done.location ?? '';
  }

  it('signs in through the code flow and answers the identity with roles from groups', async () => {
    const browser = new Browser();
    const target = await signIn(browser, 'alice', '/services/42?tab=keys');
    expect(target).toBe(`${app}/services/42?tab=keys`);

    const me = await browser.get(`${app}/auth/me`);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.text)).toEqual({
      id: 'alice',
      email: 'alice@example.com',
      name: 'Alice Admin',
      provider: 'openid',
      roles: ['admin', 'staff'],
      policies: ['canAll', 'canChange', 'canReveal'],
      permissions: ['canAll', 'canChange', 'canReveal'],
      passwordChangeRequired: false,
    });
    expect((await browser.get(`${app}/api/auth/me`)).status).toBe(200);
  });

  it('sends PKCE (S256), state, nonce and the configured scopes to the provider', async () => {
    const browser = new Browser();
    const start = await browser.get(`${app}/auth/login`);
    expect(start.status).toBe(302);
    const url = new URL(start.location ?? '');
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('redirect_uri')).toBe(`${app}/auth/callback`);
    expect(url.searchParams.get('scope')).toBe('openid email profile groups');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    // The verifier stays on the server: nothing but the session id reaches the browser.
    expect(start.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual([SESSION]);
    expect(start.headers.getSetCookie()[0]).toMatch(/HttpOnly/i);
    expect(start.headers.getSetCookie()[0]).toMatch(/SameSite=Lax/i);
  });

  it('maps groups to canAll and canChange', async () => {
    const developer = new Browser();
    await signIn(developer, 'bob');
    const bob = JSON.parse((await developer.get(`${app}/auth/me`)).text) as { roles: string[]; policies: string[] };
    expect(bob.roles).toEqual(['developer']);
    expect(bob.policies).toEqual(['canChange']);
    expect((await developer.request('POST', `${app}/api/services/search`, {})).status).toBe(200);
    expect((await developer.request('POST', `${app}/api/services`, { name: 'by-bob' })).status).toBe(403);

    const admin = new Browser();
    await signIn(admin, 'alice');
    const created = await admin.request('POST', `${app}/api/services`, { name: 'by-alice' });
    expect(created.status).toBe(201);

    const nobody = new Browser();
    await signIn(nobody, 'carol');
    const carol = JSON.parse((await nobody.get(`${app}/auth/me`)).text) as { policies: string[] };
    expect(carol.policies).toEqual([]);
    expect((await nobody.request('POST', `${app}/api/services/search`, {})).status).toBe(403);

    const search = await developer.request('POST', `${app}/api/services/search`, { name: 'by-' });
    expect((JSON.parse(search.text) as { entities: Array<{ name: string }> }).entities.map((s) => s.name)).toEqual([
      'by-alice',
    ]);
  });

  it('issues a fresh session id at sign-in, and the old one opens nothing', async () => {
    const browser = new Browser();
    const callback = await callbackUrlFor(browser, 'alice');
    const before = browser.cookie(SESSION);
    expect(before).toBeTruthy();
    expect((await browser.get(callback)).status).toBe(302);
    const after = browser.cookie(SESSION);
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    expect((await browser.get(`${app}/auth/me`)).status).toBe(200);

    const attacker = new Browser();
    attacker.setCookie(SESSION, before ?? '');
    expect((await attacker.get(`${app}/auth/me`)).status).toBe(401);
  });

  it('logs out: ends the session and redirects to the provider end-session endpoint', async () => {
    const browser = new Browser();
    await signIn(browser, 'alice');
    const logout = await browser.get(`${app}/auth/logout`);
    expect(logout.status).toBe(302);
    const endSession = new URL(logout.location ?? '');
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${idp.issuer}/session/end`);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${app}/`);
    expect(endSession.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(endSession.searchParams.get('id_token_hint')?.split('.')).toHaveLength(3);
    expect((await browser.get(`${app}/auth/me`)).status).toBe(401);
    // The provider accepts the request (a bad hint or redirect URI would answer an error page).
    const providerPage = await browser.get(endSession.href);
    expect(providerPage.status).toBe(200);
    expect(providerPage.text).toContain('logout');
  });

  it('refuses a callback with a wrong or missing state and opens no session', async () => {
    const browser = new Browser();
    const callback = new URL(await callbackUrlFor(browser, 'alice'));
    const good = callback.searchParams.get('state') ?? '';

    callback.searchParams.set('state', `${good}x`);
    const wrong = await browser.get(callback.href);
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeNull();
    expect(wrong.headers.get('content-type')).toContain('application/problem+json');
    expect(wrong.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
    expect((await browser.get(`${app}/auth/me`)).status).toBe(401);

    callback.searchParams.delete('state');
    expect((await browser.get(callback.href)).status).toBe(401);
    expect((await browser.get(`${app}/auth/me`)).status).toBe(401);

    // Only the state was wrong: the genuine answer still signs in.
    callback.searchParams.set('state', good);
    expect((await browser.get(callback.href)).status).toBe(302);
    expect((await browser.get(`${app}/auth/me`)).status).toBe(200);
  });

  it('refuses a replayed callback after a successful sign-in', async () => {
    const browser = new Browser();
    const callback = await callbackUrlFor(browser, 'bob');
    expect((await browser.get(callback)).status).toBe(302);
    const replay = await browser.get(callback);
    expect(replay.status).toBe(401);
    expect(replay.location).toBeNull();

    // Another browser replaying it gets nothing either.
    const other = new Browser();
    expect((await other.get(callback)).status).toBe(401);
    expect((await other.get(`${app}/auth/me`)).status).toBe(401);
  });

  it('refuses a provider error or a code the provider does not know, without a stack trace', async () => {
    const answers: Array<Record<string, string>> = [{ error: 'access_denied' }, { code: 'not-a-real-code' }];
    for (const params of answers) {
      const browser = new Browser();
      const start = await browser.get(`${app}/auth/login`);
      const state = new URL(start.location ?? '').searchParams.get('state') ?? '';
      const query = new URLSearchParams({ ...params, state, iss: idp.issuer });
      const callback = await browser.get(`${app}/auth/callback?${query.toString()}`);
      expect(callback.status, JSON.stringify(params)).toBe(401);
      const problem = JSON.parse(callback.text) as { status: number; detail: string };
      expect(problem.status).toBe(401);
      expect(callback.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
      expect((await browser.get(`${app}/auth/me`)).status).toBe(401);
    }
  });

  it.each(['https://evil.example/', '//evil.example', '/\\evil.example', 'evil.example'])(
    'replaces the off-site returnUrl %s by /',
    async (returnUrl) => {
      expect(await signIn(new Browser(), 'alice', returnUrl)).toBe(`${app}/`);
    },
  );

  it('answers 401, never a redirect, for /api without sign-in', async () => {
    const browser = new Browser();
    for (const [method, url] of [
      ['GET', '/api/auth/me'],
      ['GET', '/auth/me'],
      ['POST', '/api/services/search'],
    ] as const) {
      const response = await browser.request(method, `${app}${url}`, method === 'POST' ? {} : undefined);
      expect(response.status, url).toBe(401);
      expect(response.location).toBeNull();
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('answers /auth/config with openid and has no Local user management', async () => {
    const browser = new Browser();
    const config = await browser.get(`${app}/auth/config`);
    expect(config.status).toBe(200);
    expect(JSON.parse(config.text)).toEqual({ provider: 'openid' });
    expect((await browser.get(`${app}/api/users`)).status).toBe(404);
    await signIn(browser, 'alice');
    expect((await browser.get(`${app}/api/users`)).status).toBe(404);
    const localLogin = await browser.request('POST', `${app}/auth/login`, { username: 'admin', password: 'admin' });
    expect(localLogin.status).toBe(404);
  });
});

describe('OpenId provider start', () => {
  it('stops the start with an error naming Authentication:OpenId:Authority when discovery fails', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(
      startTestServer({
        args: [
          '--Authentication:Provider=OpenId',
          `--Authentication:OpenId:Authority=http://127.0.0.1:${port}`,
          `--Authentication:OpenId:ClientId=${CLIENT_ID}`,
          `--Authentication:OpenId:ClientSecret=${CLIENT_SECRET}`,
          '--Authentication:OpenId:RequireHttpsMetadata=false',
        ],
      }),
    ).rejects.toThrow(/Authentication:OpenId:Authority/);
  });

  it('refuses http metadata unless RequireHttpsMetadata is false', async () => {
    const idp = await TestOidcProvider.start(ACCOUNTS);
    try {
      await expect(
        startTestServer({
          args: [
            '--Authentication:Provider=OpenId',
            `--Authentication:OpenId:Authority=${idp.issuer}`,
            `--Authentication:OpenId:ClientId=${CLIENT_ID}`,
            `--Authentication:OpenId:ClientSecret=${CLIENT_SECRET}`,
          ],
        }),
      ).rejects.toThrow(/Authentication:OpenId:Authority.*https/i);
    } finally {
      await idp.close();
    }
  });
});
