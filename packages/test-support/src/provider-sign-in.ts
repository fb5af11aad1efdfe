/**
 * Real sign-in for each of the four providers (Local, OpenId, Jwt, Saml), behind one small interface,
 * so one suite can check the same route policies and membership rule for all of them. The identity
 * providers are the test ones of openid-provider.test.ts, jwt-provider.test.ts and saml-provider.test.ts
 * (test-oidc-provider.ts, test-jwt-issuer.ts, test-saml-idp.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { sql } from 'kysely';
import { Browser } from './cookie-browser.js';
import { JWT_AUDIENCE, TestIssuer, signToken, signingKey } from './test-jwt-issuer.js';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, TestOidcProvider, followToCallback } from './test-oidc-provider.js';
import { IDP_ENTITY_ID, SP_ENTITY_ID, TestSamlIdentityProvider, buildResponse, makeKeyPair } from './test-saml-idp.js';
import { ApiClient, startTestServer, type TestServer } from './test-server.js';

export type ProviderName = 'Local' | 'OpenId' | 'Jwt' | 'Saml';
export type Who = 'admin' | 'developer' | 'nobody';

/** The one identity of each kind, the same claims for every external provider. */
export interface TestPerson {
  readonly id: string;
  readonly email: string | null;
  readonly name: string;
  readonly groups: readonly string[];
}

export const EXTERNAL_PEOPLE: Readonly<Record<Who, TestPerson>> = {
  admin: { id: 'ada-sub', email: 'ada@example.test', name: 'Ada Admin', groups: ['cfg-admins', 'staff'] },
  developer: { id: 'dev-sub-42', email: 'devon@example.test', name: 'Devon Developer', groups: ['cfg-devs'] },
  nobody: { id: 'nora-sub', email: 'nora@example.test', name: 'Nora Nobody', groups: ['staff'] },
};

/** Role claims and policies shared by the external providers. */
export const EXTERNAL_ROLE_ARGS: readonly string[] = [
  '--Authentication:RoleClaimType=groups',
  // Without `name`: users can often edit it themselves, and it would otherwise count as a role.
  '--Authorization:RoleClaimTypes:0=groups',
  '--Authorization:Policies:canAll:0=cfg-admins',
  '--Authorization:Policies:canReveal:0=cfg-admins',
  '--Authorization:Policies:canChange:0=cfg-devs',
];

export interface CallResult {
  readonly status: number;
  readonly body: any;
}

/** A signed-in caller of the app's API. */
export type Caller = (method: string, url: string, body?: unknown) => Promise<CallResult>;

export interface ProviderHarness {
  readonly server: TestServer;
  /** Who each kind of identity is, as the app should see it. */
  readonly people: Readonly<Record<Who, TestPerson>>;
  signIn(who: Who): Promise<Caller>;
  close(): Promise<void>;
}

const cookieCaller =
  (client: ApiClient): Caller =>
  async (method, url, body) => {
    const res = await client.request(method, url, { body });
    return { status: res.status, body: res.body };
  };

// ---------------------------------------------------------------------------------------------- Local

async function startLocal(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const server = await startTestServer({ kind });
  const people: Record<Who, TestPerson> = {
    admin: { id: 'local-admin', email: null, name: 'local-admin', groups: ['admin'] },
    developer: { id: 'local-dev', email: null, name: 'local-dev', groups: ['developer'] },
    // The user API only knows admin and developer; a role no policy maps is set in the database.
    nobody: { id: 'local-nobody', email: null, name: 'local-nobody', groups: ['viewer'] },
  };
  const admin = await server.admin();
  for (const who of ['admin', 'developer', 'nobody'] as const) {
    const person = people[who];
    const role = who === 'admin' ? 'admin' : 'developer';
    const created = await admin.post('/api/users', {
      username: person.id,
      password: `${person.id}-password-for-tests`,
      role,
    });
    if (created.status !== 201) throw new Error(`creating ${person.id}: ${created.status} ${created.text}`);
  }
  await sql`update users set role = ${'viewer'} where username = ${people.nobody.id}`.execute(
    server.internals.database.db,
  );
  return {
    server,
    people,
    async signIn(who) {
      const person = people[who];
      return cookieCaller(await server.client().login(person.id, `${person.id}-password-for-tests`));
    },
    close: () => server.close(),
  };
}

// --------------------------------------------------------------------------------------------- OpenId

/** Starts a sign-in at the app and drives the provider's login and consent forms through the callback. */
async function oidcSignIn(browser: Browser, app: string, account: string): Promise<void> {
  const start = await browser.get(`${app}/auth/login`);
  if (start.status !== 302) throw new Error(`/auth/login answered ${start.status}: ${start.text}`);
  const callback = await followToCallback(browser, app, start.location ?? '', account);
  const done = await browser.get(callback);
  if (done.status !== 302) throw new Error(`the callback answered ${done.status}: ${done.text}`);
}

async function startOpenId(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const accounts = Object.fromEntries(
    Object.values(EXTERNAL_PEOPLE).map((p) => [p.id, { email: p.email, name: p.name, groups: [...p.groups] }]),
  );
  const idp = await TestOidcProvider.start(accounts);
  const server = await startTestServer({
    kind,
    args: [
      '--Authentication:Provider=OpenId',
      `--Authentication:OpenId:Authority=${idp.issuer}`,
      `--Authentication:OpenId:ClientId=${OIDC_CLIENT_ID}`,
      `--Authentication:OpenId:ClientSecret=${OIDC_CLIENT_SECRET}`,
      '--Authentication:OpenId:RequireHttpsMetadata=false',
      '--Authentication:OpenId:Scope:0=openid',
      '--Authentication:OpenId:Scope:1=email',
      '--Authentication:OpenId:Scope:2=profile',
      '--Authentication:OpenId:Scope:3=groups',
      ...EXTERNAL_ROLE_ARGS,
    ],
  });
  idp.registerClient(server.baseUrl);
  return {
    server,
    people: EXTERNAL_PEOPLE,
    async signIn(who) {
      const browser = new Browser();
      await oidcSignIn(browser, server.baseUrl, EXTERNAL_PEOPLE[who].id);
      return async (method, url, body) => {
        const res = await browser.request(method, `${server.baseUrl}${url}`, body as object | undefined);
        const json = (res.headers.get('content-type') ?? '').includes('json');
        return { status: res.status, body: json && res.text ? JSON.parse(res.text) : res.text };
      };
    },
    async close() {
      await server.close();
      await idp.close();
    },
  };
}

// ------------------------------------------------------------------------------------------------ Jwt

async function startJwt(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const key = await signingKey('key-a');
  const issuer = await new TestIssuer().start();
  await issuer.publish(key);
  const server = await startTestServer({
    kind,
    args: [
      '--Authentication:Provider=Jwt',
      `--Authentication:Jwt:Authority=${issuer.authority}`,
      `--Authentication:Jwt:Audience=${JWT_AUDIENCE}`,
      '--Authentication:Jwt:RequireHttpsMetadata=false',
      ...EXTERNAL_ROLE_ARGS,
    ],
  });
  return {
    server,
    people: EXTERNAL_PEOPLE,
    async signIn(who) {
      const person = EXTERNAL_PEOPLE[who];
      const token = await signToken(
        { sub: person.id, email: person.email, name: person.name, groups: [...person.groups] },
        { key, issuer: issuer.authority },
      );
      const client = new ApiClient(server.baseUrl);
      return async (method, url, body) => {
        const res = await client.request(method, url, { body, headers: { authorization: `Bearer ${token}` } });
        return { status: res.status, body: res.body };
      };
    },
    async close() {
      await server.close();
      await issuer.close();
    },
  };
}

// ----------------------------------------------------------------------------------------------- Saml

async function startSaml(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const keyDir = mkdtempSync(path.join(tmpdir(), 'rc-saml-'));
  const idp = new TestSamlIdentityProvider(makeKeyPair(keyDir, 'idp'));
  await idp.start();
  const server = await startTestServer({
    kind,
    args: [
      '--Authentication:Provider=Saml',
      `--Authentication:Saml:SpOptionsEntityId=${SP_ENTITY_ID}`,
      `--Authentication:Saml:IdentityProviderEntityId=${IDP_ENTITY_ID}`,
      `--Authentication:Saml:IdentityProviderMetadataUrl=${idp.metadataUrl}`,
      '--Authentication:Saml:RequireHttpsMetadata=false',
      ...EXTERNAL_ROLE_ARGS,
    ],
  });
  const acsUrl = `${server.baseUrl}/saml2/Acs`;
  return {
    server,
    people: EXTERNAL_PEOPLE,
    async signIn(who) {
      const client = server.client();
      const login = await client.get('/auth/login?returnUrl=%2F');
      if (login.status !== 302) throw new Error(`/auth/login answered ${login.status}: ${login.text}`);
      const location = new URL(login.headers.get('location') ?? '');
      const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest') ?? '', 'base64'));
      const requestId = /\sID="([^"]+)"/.exec(request.toString('utf8'))?.[1];
      if (!requestId) throw new Error(`no ID in the AuthnRequest: ${request.toString('utf8')}`);
      const person = EXTERNAL_PEOPLE[who];
      const samlResponse = buildResponse(idp, {
        inResponseTo: requestId,
        acsUrl,
        nameId: person.id,
        email: person.email,
        displayName: person.name,
        groups: [...person.groups],
      });
      const form = new URLSearchParams({ SAMLResponse: samlResponse });
      const relayState = location.searchParams.get('RelayState');
      if (relayState !== null) form.set('RelayState', relayState);
      const acs = await client.post('/saml2/Acs', form.toString(), {
        contentType: 'application/x-www-form-urlencoded',
      });
      if (acs.status !== 302) throw new Error(`the ACS answered ${acs.status}: ${acs.text}`);
      return cookieCaller(client);
    },
    async close() {
      await server.close();
      await idp.close();
      rmSync(keyDir, { recursive: true, force: true });
    },
  };
}

/** Starts the app with the provider and its identity provider, ready to sign the three people in. */
export function startProviderHarness(provider: ProviderName, kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  switch (provider) {
    case 'Local':
      return startLocal(kind);
    case 'OpenId':
      return startOpenId(kind);
    case 'Jwt':
      return startJwt(kind);
    case 'Saml':
      return startSaml(kind);
  }
}
