import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import {
  IDP_ENTITY_ID,
  SP_ENTITY_ID,
  TestSamlIdentityProvider as TestIdentityProvider,
  assertionXml,
  buildResponse,
  makeKeyPair,
  responseXml,
  sign,
  type KeyPair,
} from '@realtime-config/test-support/test-saml-idp';

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
  // The test IdP serves its metadata over plain HTTP on loopback.
  '--Authentication:Saml:RequireHttpsMetadata=false',
  '--Authentication:RoleClaimType=groups',
  '--Authorization:Policies:canAll:0=rc-admins',
  '--Authorization:Policies:canReveal:0=rc-admins',
  '--Authorization:Policies:canChange:0=rc-developers',
  // The display name is not a role (docs/auth/saml.md): search only these claim types.
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

describe.each(oneDatabaseKind)('Saml provider on %s', (kind) => {
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
      policies: ['canAll', 'canChange', 'canReveal'],
      permissions: ['canAll', 'canChange', 'canReveal'],
      passwordChangeRequired: false,
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
    const stored = await server.internals.database.db
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

  it('refuses an http:// metadata URL unless RequireHttpsMetadata is false, before fetching anything', async () => {
    const args = samlArgs(idp).filter((a) => !a.includes('RequireHttpsMetadata'));
    const downloads = idp.metadataRequests;
    await expect(startTestServer({ args })).rejects.toThrow(
      /Authentication:Saml:IdentityProviderMetadataUrl must be an https:\/\/ URL when Authentication:Saml:RequireHttpsMetadata is true/,
    );
    expect(idp.metadataRequests).toBe(downloads);
  });

  it('stops with an error naming the entity id when the metadata describes another one', async () => {
    await expect(startTestServer({ args: samlArgs(idp, 'https://other-idp.example.test') })).rejects.toThrow(
      /Authentication:Saml:IdentityProviderEntityId/,
    );
  });
});
