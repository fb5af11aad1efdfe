/**
 * The Saml provider's test identity provider, shared by saml-provider.test.ts and provider-sign-in.ts:
 * openssl key pairs, metadata over HTTP, and SAMLResponses signed with xml-crypto.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SignedXml } from 'xml-crypto';

export const IDP_ENTITY_ID = 'https://idp.example.test/realms/rc';
export const SP_ENTITY_ID = 'https://config.example.test/saml2/Metadata';
const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';

export interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

/** A real key pair and self-signed certificate, made by openssl. */
export function makeKeyPair(dir: string, name: string): KeyPair {
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
export class TestSamlIdentityProvider {
  server!: Server;
  port = 0;
  /** How many times the metadata was downloaded. */
  metadataRequests = 0;
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
        this.metadataRequests++;
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

export interface ResponseOptions {
  inResponseTo: string;
  acsUrl: string;
  nameId?: string;
  /** The email address; null for an empty email attribute. */
  email?: string | null;
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

export function assertionXml(o: ResponseOptions): string {
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
    attribute(`${WS}emailaddress`, o.email === null ? [] : [o.email ?? 'alice@example.test']) +
    attribute(`${WS}name`, [o.displayName ?? 'Alice Example']) +
    attribute('groups', o.groups ?? ['rc-admins', 'staff']) +
    `</saml:AttributeStatement></saml:Assertion>`
  );
}

export function sign(xml: string, keys: KeyPair, element: 'Assertion' | 'Response'): string {
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

export function responseXml(o: ResponseOptions, assertion: string): string {
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
export function buildResponse(idp: TestSamlIdentityProvider, o: ResponseOptions): string {
  const assertionKey = o.signAssertionWith === undefined ? idp.signing : o.signAssertionWith;
  const responseKey = o.signResponseWith === undefined ? idp.signing : o.signResponseWith;
  let assertion = assertionXml(o);
  if (assertionKey) assertion = sign(assertion, assertionKey, 'Assertion');
  let response = responseXml(o, assertion);
  if (responseKey) response = sign(response, responseKey, 'Response');
  return Buffer.from(response, 'utf8').toString('base64');
}
