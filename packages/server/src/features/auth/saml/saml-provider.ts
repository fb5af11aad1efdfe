import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';
import type { SamlAuthConfig } from '../../../platform/config/app-config.js';
import { dictionary } from '../../../platform/dictionary.js';
import { AppError } from '../../../platform/errors.js';
import type { AuthProviderDependencies } from '../providers/provider-dependencies.js';
import { resolveIdentity, type Claims } from '../identity/identity.js';
import { fetchIdentityProviderMetadata, type IdentityProviderMetadata } from './saml-metadata.js';
import { markAssertionUsed, SamlRequestCache } from './saml-state.js';

/** How long a user may spend at the identity provider between our request and its response. */
export const SAML_REQUEST_LIFETIME_MS = 30 * 60_000;
/** Tolerated difference between our clock and the identity provider's. */
export const SAML_CLOCK_SKEW_MS = 60_000;

const NAME_IDENTIFIER = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier';
const EMAIL_ADDRESS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';

/** What single logout needs to name the session at the identity provider. */
export interface SamlSubject {
  readonly nameID: string;
  readonly nameIDFormat: string | null;
  readonly sessionIndex: string | null;
}

declare module 'fastify' {
  interface Session {
    /** Saml provider: the subject of the sign-in, for the logout request to the identity provider. */
    samlSubject?: SamlSubject;
  }
}

/** A response that passed every check: who signed in. */
export interface AcceptedSignIn {
  readonly claims: Claims;
  readonly subject: SamlSubject;
}

/**
 * The service provider side of SAML 2.0 (Web Browser SSO profile). node-saml checks signatures,
 * audience, time window and — with a request store — InResponseTo; this class adds what it leaves
 * out: the Issuer of response and assertion, and one use per assertion across every instance.
 */
export class SamlServiceProvider {
  private metadata: IdentityProviderMetadata | null = null;
  readonly requests: SamlRequestCache;

  constructor(
    readonly settings: SamlAuthConfig,
    private readonly deps: AuthProviderDependencies,
  ) {
    this.requests = new SamlRequestCache(deps.uow, deps.clock, SAML_REQUEST_LIFETIME_MS);
  }

  async start(): Promise<void> {
    this.metadata = await fetchIdentityProviderMetadata(
      this.settings.identityProviderMetadataUrl,
      this.settings.identityProviderEntityId,
    );
    this.deps.logger.info(
      {
        entityId: this.metadata.entityId,
        singleSignOnUrl: this.metadata.singleSignOnUrl,
        signingCertificates: this.metadata.signingCertificates.length,
      },
      'SAML identity provider metadata loaded',
    );
  }

  get identityProvider(): IdentityProviderMetadata {
    if (!this.metadata) throw new AppError('UNAVAILABLE', 'The SAML identity provider is not loaded yet.');
    return this.metadata;
  }

  acsUrl(origin: string): string {
    return `${origin}${this.settings.spOptionsModulePath}/Acs`;
  }

  /**
   * node-saml fixes the callback URL at construction; the ACS URL follows the address the browser
   * used, so one instance is built per request (construction only copies options).
   */
  saml(origin: string): SAML {
    const idp = this.identityProvider;
    const post = idp.singleSignOnBinding === 'HTTP-POST';
    return new SAML({
      entryPoint: idp.singleSignOnUrl,
      issuer: this.settings.spOptionsEntityId,
      audience: this.settings.spOptionsEntityId,
      idpIssuer: idp.entityId,
      idpCert: [...idp.signingCertificates],
      callbackUrl: this.acsUrl(origin),
      logoutCallbackUrl: `${origin}${this.settings.spOptionsModulePath}/Logout`,
      logoutUrl: idp.singleLogoutUrl ?? idp.singleSignOnUrl,
      wantAuthnResponseSigned: true,
      wantAssertionsSigned: true,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: SAML_REQUEST_LIFETIME_MS,
      cacheProvider: this.requests,
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      // Let the identity provider pick the NameID format and the way the user authenticates (MFA,
      // Windows sign-in…); requesting "password over TLS" makes Entra ID refuse such sign-ins.
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      ...(post ? { authnRequestBinding: 'HTTP-POST', skipRequestCompression: true } : {}),
    });
  }

  /** Checks a posted SAMLResponse; throws UNAUTHENTICATED with the reason logged when refused. */
  async acceptResponse(origin: string, samlResponse: unknown): Promise<AcceptedSignIn> {
    if (typeof samlResponse !== 'string' || samlResponse === '')
      throw refused('The SAMLResponse form field is missing.');
    let profile: Profile | null;
    try {
      ({ profile } = await this.saml(origin).validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (error) {
      if (error instanceof AppError) throw error;
      this.deps.logger.info({ reason: (error as Error).message }, 'SAML response refused');
      throw refused('The SAML response is not valid.');
    }
    if (!profile) throw refused('The SAML response carries no assertion.');

    const expected = this.settings.identityProviderEntityId;
    const responseIssuer = responseIssuerOf(samlResponse);
    // Issuer is optional on the Response (SAML core 3.2.2) but required on the assertion, which is signed.
    if (responseIssuer !== null && responseIssuer !== expected) {
      this.deps.logger.info({ issuer: responseIssuer, expected }, 'SAML response refused: issuer of the response');
      throw refused('The SAML response comes from another identity provider.');
    }
    if (profile.issuer !== expected) {
      this.deps.logger.info({ issuer: profile.issuer, expected }, 'SAML response refused: issuer of the assertion');
      throw refused('The SAML assertion comes from another identity provider.');
    }

    const assertion = assertionInfo(profile);
    if (!assertion.id) throw refused('The SAML assertion has no ID.');
    const nowMicros = this.deps.clock.nowMicros();
    const expiresAt =
      (assertion.notOnOrAfterMs ?? nowMicros / 1000 + SAML_REQUEST_LIFETIME_MS) * 1000 + SAML_CLOCK_SKEW_MS * 1000;
    if (!(await markAssertionUsed(this.deps.uow, this.deps.clock, assertion.id, Math.ceil(expiresAt)))) {
      this.deps.logger.warn({ assertionId: assertion.id }, 'SAML response refused: assertion already used (replay)');
      throw refused('The SAML assertion was already used.');
    }

    const claims = claimsOf(profile);
    if (!resolveIdentity('saml', claims, this.deps.claimSettings)) {
      throw refused('The SAML assertion does not name the user (no NameID or id claim).');
    }
    return {
      claims,
      subject: {
        nameID: profile.nameID,
        nameIDFormat: profile.nameIDFormat ?? null,
        sessionIndex: profile.sessionIndex ?? null,
      },
    };
  }
}

function refused(detail: string): AppError {
  return AppError.unauthenticated(detail);
}

function responseIssuerOf(samlResponse: string): string | null {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const issuers = xpath.select(
    "/*[local-name()='Response']/*[local-name()='Issuer']",
    doc as unknown as Node,
  ) as Element[];
  if (issuers.length > 1) return '(several issuers)';
  return issuers[0] ? (issuers[0].textContent ?? '').trim() : null;
}

type XmlJs = Record<string, unknown> & { $?: Record<string, string> };

function first(value: unknown): XmlJs | undefined {
  return Array.isArray(value) ? (value[0] as XmlJs | undefined) : undefined;
}

/** The ID and the latest time the (signed) assertion can be accepted. */
function assertionInfo(profile: Profile): { id: string | null; notOnOrAfterMs: number | null } {
  const parsed = profile.getAssertion?.() as { Assertion?: XmlJs } | undefined;
  const assertion = parsed?.Assertion;
  const times: number[] = [];
  const conditions = first(assertion?.Conditions);
  if (conditions?.$?.NotOnOrAfter) times.push(Date.parse(conditions.$.NotOnOrAfter));
  const confirmations = first(assertion?.Subject)?.SubjectConfirmation;
  if (Array.isArray(confirmations)) {
    for (const confirmation of confirmations as XmlJs[]) {
      const notOnOrAfter = first(confirmation.SubjectConfirmationData)?.$?.NotOnOrAfter;
      if (notOnOrAfter) times.push(Date.parse(notOnOrAfter));
    }
  }
  const valid = times.filter((t) => Number.isFinite(t));
  return { id: assertion?.$?.ID ?? null, notOnOrAfterMs: valid.length > 0 ? Math.max(...valid) : null };
}

/** The attributes as claims (string values only), the NameID as nameidentifier, and the e-mail. */
function claimsOf(profile: Profile): Claims {
  // Attribute names come from the identity provider's assertion.
  const claims = dictionary<string | string[]>();
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  for (const [type, value] of Object.entries(attributes)) {
    if (typeof value === 'string') claims[type] = value;
    else if (Array.isArray(value)) {
      const strings = value.filter((v): v is string => typeof v === 'string');
      if (strings.length > 0) claims[type] = strings;
    }
  }
  claims[NAME_IDENTIFIER] = profile.nameID;
  const email = typeof profile.email === 'string' ? profile.email : null;
  if (email && !Object.keys(claims).some((type) => type === EMAIL_ADDRESS || type === 'email')) {
    claims[EMAIL_ADDRESS] = email;
  }
  return claims;
}
