/**
 * The Jwt provider's test issuer, shared by jwt-provider.test.ts and provider-sign-in.ts: a minimal
 * OpenID provider on a loopback port (the discovery document and a JWKS made of real keys), and
 * tokens signed with jose.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** The audience the app is configured with, and the default one of `signToken`. */
export const JWT_AUDIENCE = 'realtime-config';

/**
 * A minimal OpenID provider on a loopback port: the discovery document and a JWKS made of real keys.
 * Tokens are signed with jose; what the server sees is exactly what a real provider would publish.
 */
export class TestIssuer {
  private server: Server | null = null;
  readonly published: JWK[] = [];
  jwksFetches = 0;
  /** What the discovery document says the issuer is; defaults to the authority itself. */
  issuerOverride: string | null = null;

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }
  get authority(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get issuer(): string {
    return this.issuerOverride ?? this.authority;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: this.issuer, jwks_uri: `${this.authority}/jwks` }));
      } else if (req.url === '/jwks') {
        this.jwksFetches += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ keys: this.published }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async publish(key: SigningKey): Promise<void> {
    this.published.push({ ...(await exportJWK(key.publicKey)), kid: key.kid, alg: key.alg, use: 'sig' });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey };
}

export interface TokenOptions {
  key: SigningKey;
  issuer: string;
  audience?: string;
  /** Seconds relative to now. */
  expiresIn?: number | null;
  notBefore?: number;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export async function signToken(claims: JWTPayload, options: TokenOptions): Promise<string> {
  const now = nowSeconds();
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.key.alg, kid: options.key.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(options.audience ?? JWT_AUDIENCE)
    .setIssuedAt(now);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt.sign(options.key.privateKey);
}
