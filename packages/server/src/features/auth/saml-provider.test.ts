import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, startTestServer, type TestServer } from '../../test-support/test-server.js';
import { databaseKinds } from '../../test-support/test-databases.js';

const IDP_ENTITY_ID = 'https://idp.example.test/realms/rc';
const SP_ENTITY_ID = 'https://config.example.test/saml2/Metadata';
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
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
}

function certBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

/** The test identity provider: metadata over HTTP, responses signed with its key. */
class TestIdentityProvider {
  server!: Server;
  port = 0;
  constructor(
    readonly signing: KeyPair,
    readonly entityId = IDP_ENTITY_ID,
  ) {}

  get metadataUrl(): string {
    return `http://127.0.0.1:${this.port}/metadata`;
  }
  get ssoUrl(): string {
    return `http://127.0.0.1:${this.port}/sso`;
  }
  get sloUrl(): string {
    return `http://127.0.0.1:${this.port}/slo`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.url === '/metadata') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(this.metadata());
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  metadata(): string {
    return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${this.entityId}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(this.signing.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${this.sloUrl}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${this.ssoUrl}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${this.ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface ResponseOptions {
  inResponseTo: string;
  acsUrl: string;
  nameId?: string;
  email?: string;
  displayName?: string;
  groups?: string[];
  responseIssuer?: string;
  assertionIssuer?: string;
  audience?: string;
  /** Minutes from now; negative for an expired assertion. */
  validMinutes?: number;
  assertionId?: string;
  /** Key signing the Response; null for none. */
  signResponseWith?: KeyPair | null;
  /** Key signing the Assertion; null for none. */
  signAssertionWith?: KeyPair | null;
}

const iso = (offsetMinutes: number): string => new Date(Date.now() + offsetMinutes * 60_000).toISOString();

function assertionXml(o: ResponseOptions): string {
  const valid = o.validMinutes ?? 5;
  const attribute = (name: string, values: string[]): string =>
    `<saml:Attribute Name="${name}">${values.map((v) => `<saml:AttributeValue>${v}</saml:AttributeValue>`).join('')}</saml:Attribute>`;
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.assertionId ?? `_a${randomUUID()}`}" Version="2.0" IssueInstant="${iso(0)}">` +
    `<saml:Issuer>${o.assertionIssuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${o.nameId ?? 'alice'}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData InResponseTo="${o.inResponseTo}" NotOnOrAfter="${iso(valid)}" Recipient="${o.acsUrl}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(Math.min(valid, 0) - 10)}" NotOnOrAfter="${iso(valid)}">` +
    `<saml:AudienceRestriction><saml:Audience>${o.audience ?? SP_ENTITY_ID}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>` +
    attribute(`${WS}emailaddress`, [o.email ?? 'alice@example.test']) +
    attribute(`${WS}name`, [o.displayName ?? 'Alice Example']) +
    attribute('groups', o.groups ?? ['rc-admins', 'staff']) +
    `</saml:AttributeStatement></saml:Assertion>`
  );
}

function sign(xml: string, keys: KeyPair, element: 'Assertion' | 'Response'): string {
  const sig = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
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

function responseXml(o: ResponseOptions, assertion: string): string {
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"` +
    ` ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${o.acsUrl}" InResponseTo="${o.inResponseTo}">` +
    `<saml:Issuer>${o.responseIssuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}

/** A SAMLResponse form value, signed the way the options say (by default: response and assertion by the IdP). */
function buildResponse(idp: TestIdentityProvider, o: ResponseOptions): string {
  const assertionKey = o.signAssertionWith === undefined ? idp.signing : o.signAssertionWith;
  const responseKey = o.signResponseWith === undefined ? idp.signing : o.signResponseWith;
  let assertion = assertionXml(o);
  if (assertionKey) assertion = sign(assertion, assertionKey, 'Assertion');
  let response = responseXml(o, assertion);
  if (responseKey) response = sign(response, responseKey, 'Response');
  return Buffer.from(response, 'utf8').toString('base64');
}

interface StartedLogin {
  readonly requestId: string;
  readonly location: URL;
  readonly relayState: string | null;
}

async function startLogin(client: ApiClient, returnUrl = '/services/42?tab=keys'): Promise<StartedLogin> {
  const res = await client.get(`/auth/login?returnUrl=${encodeURIComponent(returnUrl)}`);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') ?? '');
  const samlRequest = location.searchParams.get('SAMLRequest') ?? '';
  const xml = inflateRawSync(Buffer.from(samlRequest, 'base64')).toString('utf8');
  const requestId = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (!requestId) throw new Error(`no ID in ${xml}`);
  return { requestId, location, relayState: location.searchParams.get('RelayState') };
}

function postAcs(client: ApiClient, samlResponse: string, relayState: string | null) {
  const form = new URLSearchParams({ SAMLResponse: samlResponse });
  if (relayState !== null) form.set('RelayState', relayState);
  return client.post('/saml2/Acs', form.toString(), { contentType: 'application/x-www-form-urlencoded' });
}

const samlArgs = (idp: TestIdentityProvider, entityId = IDP_ENTITY_ID): string[] => [
  '--Authentication:Provider=Saml',
  `--Authentication:Saml:SpOptionsEntityId=${SP_ENTITY_ID}`,
  `--Authentication:Saml:IdentityProviderEntityId=${entityId}`,
  `--Authentication:Saml:IdentityProviderMetadataUrl=${idp.metadataUrl}`,
  '--Authentication:RoleClaimType=groups',
  '--Authorization:Policies:canAll:0=rc-admins',
  '--Authorization:Policies:canChange:0=rc-developers',
  // The display name is not a role (CONTRACT.md section 3): search only these claim types.
  '--Authorization:RoleClaimTypes:0=role',
  '--Authorization:RoleClaimTypes:1=groups',
];

let keyDir: string;
let idpKeys: KeyPair;
let attackerKeys: KeyPair;
let idp: TestIdentityProvider;

beforeAll(async () => {
  keyDir = mkdtempSync(path.join(tmpdir(), 'rc-saml-'));
  idpKeys = makeKeyPair(keyDir, 'idp');
  attackerKeys = makeKeyPair(keyDir, 'attacker');
  idp = new TestIdentityProvider(idpKeys);
  await idp.start();
});

afterAll(async () => {
  await idp.close();
  rmSync(keyDir, { recursive: true, force: true });
});

describe.each(databaseKinds)('Saml provider on %s', (kind) => {
  let server: TestServer;
  let acsUrl: string;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: samlArgs(idp) });
    acsUrl = `${server.baseUrl}/saml2/Acs`;
  });
  afterAll(async () => {
    await server.close();
  });

  /** Posts the response and checks it was refused with 401 and opened no session. */
  async function expectRefused(
    client: ApiClient,
    samlResponse: string,
    relayState: string | null = '/',
  ): Promise<void> {
    const res = await postAcs(client, samlResponse, relayState);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 401 });
    expect(client.sessionCookie).toBeNull();
    expect((await client.get('/auth/me')).status).toBe(401);
  }

  it('signs in through the identity provider with roles from the groups attribute', async () => {
    const client = server.client();
    const login = await startLogin(client, '/services/42?tab=keys');
    expect(`${login.location.origin}${login.location.pathname}`).toBe(idp.ssoUrl);
    expect(login.relayState).toBe('/services/42?tab=keys');

    const res = await postAcs(client, buildResponse(idp, { inResponseTo: login.requestId, acsUrl }), login.relayState);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/services/42?tab=keys');
    expect(client.sessionCookie).not.toBeNull();

    const me = await client.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: 'alice',
      email: 'alice@example.test',
      name: 'Alice Example',
      provider: 'saml',
      roles: ['rc-admins', 'staff'],
      policies: ['canAll', 'canChange'],
      permissions: ['canAll', 'canChange'],
    });
    expect((await client.post('/api/services/search', {})).status).toBe(200);
  });

  it('gives a user without a mapped group no policies', async () => {
    const client = server.client();
    const login = await startLogin(client);
    const response = buildResponse(idp, { inResponseTo: login.requestId, acsUrl, nameId: 'bob', groups: ['staff'] });
    expect((await postAcs(client, response, login.relayState)).status).toBe(302);
    const me = await client.get('/auth/me');
    expect(me.body).toMatchObject({ id: 'bob', roles: ['staff'], policies: [] });
    expect((await client.post('/api/services/search', {})).status).toBe(403);
  });

  it('issues a fresh session id at sign-in', async () => {
    const client = server.client();
    const first = await startLogin(client);
    await postAcs(client, buildResponse(idp, { inResponseTo: first.requestId, acsUrl }), '/');
    const before = client.sessionCookie;
    const second = await startLogin(client);
    await postAcs(client, buildResponse(idp, { inResponseTo: second.requestId, acsUrl, nameId: 'carol' }), '/');
    expect(client.sessionCookie).not.toBe(before);
    expect((await client.get('/auth/me')).body).toMatchObject({ id: 'carol' });
  });

  it('refuses an unsigned response', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await expectRefused(
      client,
      buildResponse(idp, { inResponseTo: login.requestId, acsUrl, signResponseWith: null, signAssertionWith: null }),
    );
  });

  it('refuses a response signed by another key', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await expectRefused(
      client,
      buildResponse(idp, {
        inResponseTo: login.requestId,
        acsUrl,
        signResponseWith: attackerKeys,
        signAssertionWith: attackerKeys,
      }),
    );
  });

  it('refuses a validly signed response from another issuer', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await expectRefused(
      client,
      buildResponse(idp, { inResponseTo: login.requestId, acsUrl, responseIssuer: 'https://evil.example.test' }),
    );
    const again = await startLogin(client);
    await expectRefused(
      client,
      buildResponse(idp, { inResponseTo: again.requestId, acsUrl, assertionIssuer: 'https://evil.example.test' }),
    );
    const third = await startLogin(client);
    // An issuer that merely starts with the expected one is another issuer.
    await expectRefused(
      client,
      buildResponse(idp, {
        inResponseTo: third.requestId,
        acsUrl,
        responseIssuer: `${IDP_ENTITY_ID}/x`,
        assertionIssuer: `${IDP_ENTITY_ID}/x`,
      }),
    );
  });

  it('refuses an assertion for another audience', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await expectRefused(
      client,
      buildResponse(idp, { inResponseTo: login.requestId, acsUrl, audience: 'https://other-sp.example.test' }),
    );
  });

  it('refuses an expired assertion', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await expectRefused(client, buildResponse(idp, { inResponseTo: login.requestId, acsUrl, validMinutes: -60 }));
  });

  it('refuses a response that answers no request of ours', async () => {
    const client = server.client();
    await startLogin(client);
    await expectRefused(client, buildResponse(idp, { inResponseTo: `_${randomUUID()}`, acsUrl }));
  });

  it('refuses a replayed response', async () => {
    const first = server.client();
    const login = await startLogin(first);
    const assertionId = `_a${randomUUID()}`;
    const response = buildResponse(idp, { inResponseTo: login.requestId, acsUrl, assertionId });
    expect((await postAcs(first, response, '/')).status).toBe(302);
    const stored = await server.app.database.db
      .selectFrom('saml_assertions')
      .select('id')
      .where('id', '=', assertionId)
      .execute();
    expect(stored).toHaveLength(1);

    const attacker = server.client();
    await expectRefused(attacker, response);
  });

  it('refuses a replayed assertion even in a response to a new request', async () => {
    const client = server.client();
    const assertionId = `_a${randomUUID()}`;
    const first = await startLogin(client);
    expect(
      (await postAcs(client, buildResponse(idp, { inResponseTo: first.requestId, acsUrl, assertionId }), '/')).status,
    ).toBe(302);
    const other = server.client();
    const second = await startLogin(other);
    await expectRefused(other, buildResponse(idp, { inResponseTo: second.requestId, acsUrl, assertionId }));
  });

  it('refuses XML signature wrapping: a signed assertion moved into an unsigned response for another user', async () => {
    const client = server.client();
    const login = await startLogin(client);
    const signedAssertion = sign(
      assertionXml({ inResponseTo: login.requestId, acsUrl, nameId: 'alice' }),
      idpKeys,
      'Assertion',
    );
    const evilAssertion = assertionXml({
      inResponseTo: login.requestId,
      acsUrl,
      nameId: 'mallory',
      groups: ['rc-admins'],
    });
    // The signed assertion hides inside the evil one's Subject, where naive verifiers still find it by ID.
    const wrapped = evilAssertion.replace('</saml:Subject>', `${signedAssertion}</saml:Subject>`);
    const xml = responseXml({ inResponseTo: login.requestId, acsUrl }, wrapped);
    await expectRefused(client, Buffer.from(xml, 'utf8').toString('base64'));

    // Also with the signed assertion first and the evil one beside it.
    const again = await startLogin(client);
    const signed2 = sign(assertionXml({ inResponseTo: again.requestId, acsUrl }), idpKeys, 'Assertion');
    const evil2 = assertionXml({ inResponseTo: again.requestId, acsUrl, nameId: 'mallory' });
    const xml2 = responseXml({ inResponseTo: again.requestId, acsUrl }, `${evil2}${signed2}`);
    await expectRefused(client, Buffer.from(xml2, 'utf8').toString('base64'));
  });

  it('refuses a post without a SAMLResponse', async () => {
    const client = server.client();
    const res = await client.post('/saml2/Acs', 'RelayState=%2F', { contentType: 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(401);
    expect(client.sessionCookie).toBeNull();
  });

  it('replaces an off-site return URL by /', async () => {
    for (const returnUrl of ['https://evil.example.test/', '//evil.example.test/', '/\\evil.example.test/']) {
      const client = server.client();
      const login = await startLogin(client, returnUrl);
      expect(login.relayState).toBe('/');
      const res = await postAcs(client, buildResponse(idp, { inResponseTo: login.requestId, acsUrl }), returnUrl);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/');
    }
  });

  it('serves the service provider metadata with the entity id and the ACS URL', async () => {
    const res = await server.client().get('/saml2/Metadata');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
    expect(res.text).toContain(`entityID="${SP_ENTITY_ID}"`);
    expect(res.text).toContain(`Location="${acsUrl}"`);
    expect(res.text).toContain('WantAssertionsSigned="true"');
  });

  it('ends the session at logout and sends the browser to the identity provider', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await postAcs(client, buildResponse(idp, { inResponseTo: login.requestId, acsUrl }), '/');
    expect((await client.get('/auth/me')).status).toBe(200);
    const cookie = client.sessionCookie;

    const res = await client.get('/saml2/Logout');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${idp.sloUrl}\\?SAMLRequest=`));
    expect((await client.get('/auth/me')).status).toBe(401);
    // The old cookie opens nothing either.
    const stale = new ApiClient(server.baseUrl);
    const me = await stale.get('/auth/me', { headers: { cookie: cookie ?? '' } });
    expect(me.status).toBe(401);

    const anonymous = await server
      .client()
      .post('/saml2/Logout', '', { contentType: 'application/x-www-form-urlencoded' });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/');
  });

  it('answers 401 under /api without a session, and /auth/config names the provider', async () => {
    const client = server.client();
    const res = await client.post('/api/services/search', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('location')).toBeNull();
    expect((await client.get('/auth/config')).body).toEqual({ provider: 'saml' });
  });

  it('keeps /api JSON-only', async () => {
    const client = server.client();
    const login = await startLogin(client);
    await postAcs(client, buildResponse(idp, { inResponseTo: login.requestId, acsUrl }), '/');
    const res = await client.post('/api/services', 'name=x', { contentType: 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
  });
});

describe('Saml provider startup', () => {
  it('stops with an error naming the metadata URL when it cannot be downloaded', async () => {
    const unreachable = new TestIdentityProvider(idpKeys);
    unreachable.port = 9; // discard port: nothing listens
    await expect(startTestServer({ args: samlArgs(unreachable) })).rejects.toThrow(
      /Authentication:Saml:IdentityProviderMetadataUrl/,
    );
  });

  it('stops with an error naming the entity id when the metadata describes another one', async () => {
    await expect(startTestServer({ args: samlArgs(idp, 'https://other-idp.example.test') })).rejects.toThrow(
      /Authentication:Saml:IdentityProviderEntityId/,
    );
  });
});
