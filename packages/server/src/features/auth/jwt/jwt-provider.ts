import type { FastifyRequest } from 'fastify';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import type { Identity } from '../../../core/index.js';
import type { JwtAuthConfig } from '../../../platform/config/app-config.js';
import type { AuthProvider } from '../providers/auth-provider.js';
import type { AuthProviderDependencies } from '../providers/provider-dependencies.js';
import { resolveIdentity } from '../identity/identity.js';

/**
 * Only asymmetric algorithms: the keys come from a public JWKS, so accepting HS* would let anyone
 * holding the public key mint tokens, and `none` would accept unsigned ones.
 */
export const JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Seconds of clock difference tolerated between us and the token issuer for exp and nbf. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 60;

const DISCOVERY_TIMEOUT_MS = 10_000;
const AUTHORITY_KEY = 'Authentication:Jwt:Authority';

interface Discovery {
  readonly issuer: string;
  readonly jwksUri: URL;
}

/** The discovery document's URL: `{Authority}/.well-known/openid-configuration`, whatever slash Authority ends in. */
export function discoveryUrl(authority: string): string {
  return `${authority.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

function startError(message: string, cause?: unknown): Error {
  return new Error(`${AUTHORITY_KEY}: ${message}`, cause === undefined ? undefined : { cause });
}

function checkScheme(url: URL, what: string, jwt: JwtAuthConfig): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && !jwt.requireHttpsMetadata) return;
  throw startError(
    url.protocol === 'http:'
      ? `${what} ${url.href} is not HTTPS; set Authentication:Jwt:RequireHttpsMetadata=false to allow HTTP (development only).`
      : `${what} ${url.href} must be an http(s) URL.`,
  );
}

async function readDiscovery(jwt: JwtAuthConfig): Promise<Discovery> {
  const url = new URL(discoveryUrl(jwt.authority));
  checkScheme(url, 'the discovery document', jwt);
  let document: unknown;
  try {
    const get = () =>
      fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      });
    // A GET is safe to send twice: a pooled connection the provider closed just as it was reused
    // fails with a network error (TypeError) that a new connection does not have.
    const response = await get().catch((error: unknown) => {
      if (error instanceof TypeError) return get();
      throw error;
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw startError(`could not read the discovery document at ${url.href} (${reason}).`, error);
  }
  const { issuer, jwks_uri: jwksUri } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof issuer !== 'string' || issuer === '' || typeof jwksUri !== 'string' || jwksUri === '') {
    throw startError(`the discovery document at ${url.href} has no issuer or no jwks_uri.`);
  }
  let keysUrl: URL;
  try {
    keysUrl = new URL(jwksUri);
  } catch (error) {
    throw startError(`the discovery document at ${url.href} has an invalid jwks_uri.`, error);
  }
  checkScheme(keysUrl, 'jwks_uri', jwt);
  return { issuer, jwksUri: keysUrl };
}

/** The token of an `Authorization: Bearer <token>` header; cookies and query strings are never read. */
export function bearerTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Why a token was refused, for the debug log: jose's error code and message, never the token or its claims. */
function refusalOf(error: unknown): { code: string; reason: string } {
  if (error instanceof errors.JOSEError) return { code: error.code, reason: error.message };
  if (error instanceof Error) return { code: error.name, reason: error.message };
  return { code: 'UNKNOWN', reason: String(error) };
}

/**
 * Bearer tokens issued by an external OpenID provider (Authentication:Provider=Jwt). The issuer and
 * the key set come from the provider's discovery document, read once at start; jose caches the keys
 * and fetches them again when a token names an unknown kid (at most every 30 s), so key rotation needs
 * no restart. No sign-in routes: the caller gets its token from the provider.
 */
export function createJwtProvider(deps: AuthProviderDependencies): AuthProvider {
  const jwt = deps.config.authentication.jwt;
  if (!jwt) throw new Error('Authentication:Jwt is missing although Authentication:Provider is Jwt.');
  let verifier: { keys: JWTVerifyGetKey; options: JWTVerifyOptions } | null = null;

  async function verifyBearer(token: string): Promise<Identity | null> {
    if (!verifier) {
      deps.logger.debug('bearer token refused: the Jwt provider has not started');
      return null;
    }
    try {
      const { payload } = await jwtVerify(token, verifier.keys, {
        ...verifier.options,
        currentDate: new Date(Math.floor(deps.clock.nowMicros() / 1000)),
      });
      const identity = resolveIdentity('jwt', payload, deps.claimSettings);
      if (!identity) deps.logger.debug({ code: 'NO_USER_ID' }, 'bearer token refused: it carries no user id claim');
      return identity;
    } catch (error) {
      deps.logger.debug(refusalOf(error), 'bearer token refused');
      return null;
    }
  }

  return {
    name: 'Jwt',
    async authenticate(request) {
      const token = bearerTokenOf(request);
      if (!token) {
        deps.logger.debug({ code: 'NO_BEARER_TOKEN' }, 'no bearer token in the Authorization header');
        return null;
      }
      return verifyBearer(token);
    },
    verifyBearer,
    registerRoutes: () => Promise.resolve(),
    async start() {
      const discovery = await readDiscovery(jwt);
      verifier = {
        keys: createRemoteJWKSet(discovery.jwksUri),
        options: {
          algorithms: [...JWT_ALGORITHMS],
          issuer: jwt.tokenValidationParameters.validateIssuer ? discovery.issuer : undefined,
          audience: jwt.tokenValidationParameters.validateAudience ? jwt.audience : undefined,
          clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS,
          // A token without an expiry would stay valid forever.
          requiredClaims: ['exp'],
        },
      };
      deps.logger.info({ issuer: discovery.issuer, jwksUri: discovery.jwksUri.href }, 'Jwt provider ready');
    },
    close: () => Promise.resolve(),
  };
}
