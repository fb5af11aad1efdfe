/**
 * Real sign-in for each of the four providers (Local, OpenId, Jwt, Saml), behind one small interface,
 * so one suite can check the same route policies and membership rule for all of them. The identity
 * providers are the ones of openid-provider.test.ts, jwt-provider.test.ts and saml-provider.test.ts,
 * trimmed to what a sign-in needs.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { SignedXml } from 'xml-crypto';
import { sql } from 'kysely';
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
    const created = await admin.post('/api/users', { username: person.id, password: `${person.id}-password`, role });
    if (created.status !== 201) throw new Error(`creating ${person.id}: ${created.status} ${created.text}`);
  }
  await sql`update users set role = ${'viewer'} where username = ${people.nobody.id}`.execute(server.app.database.db);
  return {
    server,
    people,
    async signIn(who) {
      const person = people[who];
      return cookieCaller(await server.client().login(person.id, `${person.id}-password`));
    },
    close: () => server.close(),
  };
}

// --------------------------------------------------------------------------------------------- OpenId

const OIDC_CLIENT_ID = 'realtime-config';
const OIDC_CLIENT_SECRET = 'client-secret-for-tests-0123456789abcdef';

/** A real oidc-provider on a loopback port (see openid-provider.test.ts). */
class OidcIdentityProvider {
  private handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  private constructor(
    private readonly server: Server,
    private readonly jwk: JWK,
    private readonly accounts: Readonly<Record<string, TestPerson>>,
  ) {}

  static async start(accounts: Readonly<Record<string, TestPerson>>): Promise<OidcIdentityProvider> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    let idp: OidcIdentityProvider | null = null;
    const server = createServer((req, res) => idp?.handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    idp = new OidcIdentityProvider(server, jwk, accounts);
    idp.handler = idp.provider([]).callback();
    return idp;
  }

  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  registerClient(appBaseUrl: string): void {
    const client = {
      client_id: OIDC_CLIENT_ID,
      client_secret: OIDC_CLIENT_SECRET,
      redirect_uris: [`${appBaseUrl}/auth/callback`],
      post_logout_redirect_uris: [`${appBaseUrl}/`],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
    this.handler = this.provider([client]).callback();
  }

  private provider(clients: Array<Record<string, unknown>>): Provider {
    const configuration: Configuration = {
      clients,
      jwks: { keys: [this.jwk] },
      cookies: { keys: ['cookie-key-for-tests'] },
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      findAccount: (_ctx, sub) => {
        const person = this.accounts[sub];
        return Promise.resolve(
          person
            ? {
                accountId: sub,
                claims: () => ({ sub, email: person.email, name: person.name, groups: [...person.groups] }),
              }
            : undefined,
        );
      },
    };
    return new Provider(this.issuer, configuration);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface BrowserResponse {
  readonly status: number;
  readonly location: string | null;
  readonly text: string;
  readonly json: boolean;
}

/** Follows no redirect by itself and keeps every cookie of the app and the provider, like one browser. */
class Browser {
  private readonly jar = new Map<string, string>();

  async request(method: string, url: string, body?: URLSearchParams | object): Promise<BrowserResponse> {
    const headers: Record<string, string> = {};
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let payload: string | undefined;
    if (body instanceof URLSearchParams) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = body.toString();
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) {
      const pair = setCookie.split(';')[0] ?? '';
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      const expired = value === '' || /expires=Thu, 01 Jan 1970/i.test(setCookie) || /max-age=0\b/i.test(setCookie);
      if (expired) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location === null ? null : new URL(location, url).href,
      text: await response.text(),
      json: (response.headers.get('content-type') ?? '').includes('json'),
    };
  }

  get(url: string): Promise<BrowserResponse> {
    return this.request('GET', url);
  }
}

/** Starts a sign-in at the app and drives the provider's login and consent forms through the callback. */
async function oidcSignIn(browser: Browser, app: string, account: string): Promise<void> {
  const start = await browser.get(`${app}/auth/login`);
  if (start.status !== 302) throw new Error(`/auth/login answered ${start.status}: ${start.text}`);
  let next = start.location ?? '';
  for (let step = 0; step < 20; step += 1) {
    if (next.startsWith(`${app}/auth/callback`)) {
      const done = await browser.get(next);
      if (done.status !== 302) throw new Error(`the callback answered ${done.status}: ${done.text}`);
      return;
    }
    const page = await browser.get(next);
    if (page.location) {
      next = page.location;
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page.text)?.[1];
    if (page.status !== 200 || !action || !prompt) {
      throw new Error(`unexpected provider answer ${page.status} at ${next}: ${page.text.slice(0, 500)}`);
    }
    const form = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      form.set('login', account);
      form.set('password', 'any password');
    }
    const posted = await browser.request('POST', new URL(action, next).href, form);
    if (!posted.location) throw new Error(`the ${prompt} form answered ${posted.status}: ${posted.text}`);
    next = posted.location;
  }
  throw new Error('the sign-in did not come back to the app');
}

async function startOpenId(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const accounts = Object.fromEntries(Object.values(EXTERNAL_PEOPLE).map((p) => [p.id, p]));
  const idp = await OidcIdentityProvider.start(accounts);
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
        return { status: res.status, body: res.json && res.text ? JSON.parse(res.text) : res.text };
      };
    },
    async close() {
      await server.close();
      await idp.close();
    },
  };
}

// ------------------------------------------------------------------------------------------------ Jwt

const JWT_AUDIENCE = 'realtime-config';

/** The discovery document and a JWKS on a loopback port (see jwt-provider.test.ts). */
class JwtIssuer {
  private server: Server | null = null;
  private readonly published: JWK[] = [];

  get authority(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async start(publicJwk: JWK): Promise<this> {
    this.published.push(publicJwk);
    this.server = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: this.authority, jwks_uri: `${this.authority}/jwks` }));
      } else if (req.url === '/jwks') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ keys: this.published }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

async function startJwt(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const kid = 'key-a';
  const { privateKey, publicKey }: { privateKey: CryptoKey; publicKey: CryptoKey } = await generateKeyPair('RS256', {
    extractable: true,
  });
  const issuer = await new JwtIssuer().start({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
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
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({
        sub: person.id,
        email: person.email,
        name: person.name,
        groups: [...person.groups],
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(issuer.authority)
        .setAudience(JWT_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(privateKey);
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

const SAML_IDP_ENTITY_ID = 'https://idp.example.test/realms/rc';
const SAML_SP_ENTITY_ID = 'https://config.example.test/saml2/Metadata';
const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';

interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

/** A real key pair and self-signed certificate, made by openssl. */
function makeKeyPair(dir: string, name: string): KeyPair {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${name}`].concat([
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]),
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
}

const certBody = (pem: string): string => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
const iso = (offsetMinutes: number): string => new Date(Date.now() + offsetMinutes * 60_000).toISOString();

/** The test identity provider: metadata over HTTP, responses signed with its key (see saml-provider.test.ts). */
class SamlIdentityProvider {
  private server!: Server;
  private port = 0;
  constructor(readonly signing: KeyPair) {}

  get metadataUrl(): string {
    return `http://127.0.0.1:${this.port}/metadata`;
  }

  async start(): Promise<this> {
    const sso = (): string => `http://127.0.0.1:${this.port}/sso`;
    this.server = createServer((req, res) => {
      if (req.url !== '/metadata') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(`<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${SAML_IDP_ENTITY_ID}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(this.signing.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="http://127.0.0.1:${this.port}/slo"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${sso()}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sso()}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** A signed SAMLResponse (response and assertion) for the person, answering the request. */
  respond(person: TestPerson, inResponseTo: string, acsUrl: string): string {
    const attribute = (name: string, values: readonly string[]): string =>
      `<saml:Attribute Name="${name}">${values.map((v) => `<saml:AttributeValue>${v}</saml:AttributeValue>`).join('')}</saml:Attribute>`;
    const assertion =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}">` +
      `<saml:Issuer>${SAML_IDP_ENTITY_ID}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${person.id}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData InResponseTo="${inResponseTo}" NotOnOrAfter="${iso(5)}" Recipient="${acsUrl}"/>` +
      `</saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${iso(-10)}" NotOnOrAfter="${iso(5)}">` +
      `<saml:AudienceRestriction><saml:Audience>${SAML_SP_ENTITY_ID}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
      `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
      `</saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement>` +
      attribute(`${WS}emailaddress`, person.email ? [person.email] : []) +
      attribute(`${WS}name`, [person.name]) +
      attribute('groups', person.groups) +
      `</saml:AttributeStatement></saml:Assertion>`;
    const response =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"` +
      ` ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${acsUrl}" InResponseTo="${inResponseTo}">` +
      `<saml:Issuer>${SAML_IDP_ENTITY_ID}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      this.sign(assertion, 'Assertion') +
      `</samlp:Response>`;
    return Buffer.from(this.sign(response, 'Response'), 'utf8').toString('base64');
  }

  private sign(xml: string, element: 'Assertion' | 'Response'): string {
    const sig = new SignedXml({
      privateKey: this.signing.key,
      publicCert: this.signing.cert,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    const target = element === 'Response' ? "/*[local-name(.)='Response']" : "//*[local-name(.)='Assertion']";
    sig.addReference({
      xpath: target,
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    sig.computeSignature(xml, { location: { reference: `${target}/*[local-name(.)='Issuer']`, action: 'after' } });
    return sig.getSignedXml();
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function startSaml(kind: 'sqlite' | 'postgres'): Promise<ProviderHarness> {
  const keyDir = mkdtempSync(path.join(tmpdir(), 'rc-saml-'));
  const idp = await new SamlIdentityProvider(makeKeyPair(keyDir, 'idp')).start();
  const server = await startTestServer({
    kind,
    args: [
      '--Authentication:Provider=Saml',
      `--Authentication:Saml:SpOptionsEntityId=${SAML_SP_ENTITY_ID}`,
      `--Authentication:Saml:IdentityProviderEntityId=${SAML_IDP_ENTITY_ID}`,
      `--Authentication:Saml:IdentityProviderMetadataUrl=${idp.metadataUrl}`,
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
      const form = new URLSearchParams({ SAMLResponse: idp.respond(EXTERNAL_PEOPLE[who], requestId, acsUrl) });
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
