import { SignJWT, exportSPKI, type JWTPayload } from 'jose';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import {
  JWT_AUDIENCE as AUDIENCE,
  TestIssuer,
  nowSeconds,
  signToken,
  signingKey,
  type SigningKey,
  type TokenOptions,
} from '@realtime-config/test-support/test-jwt-issuer';
import {
  ApiClient,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string | undefined): Record<string, unknown> =>
  JSON.parse(Buffer.from(part ?? '', 'base64url').toString()) as Record<string, unknown>;

const ADMIN_CLAIMS = {
  sub: 'admin-sub',
  email: 'admin@example.com',
  name: 'Ada Admin',
  groups: ['platform-admins'],
};
const EDITOR_CLAIMS = {
  sub: 'editor-sub',
  email: 'editor@example.com',
  name: 'Eddie Editor',
  groups: ['config-editors', 'staff'],
};

function jwtArgs(issuer: TestIssuer, extra: readonly string[] = []): string[] {
  return [
    '--Authentication:Provider=Jwt',
    `--Authentication:Jwt:Authority=${issuer.authority}`,
    `--Authentication:Jwt:Audience=${AUDIENCE}`,
    '--Authentication:Jwt:RequireHttpsMetadata=false',
    '--Authentication:RoleClaimType=groups',
    // Without `name`, which users can often edit themselves (docs/auth/jwt.md).
    '--Authorization:RoleClaimTypes:0=groups',
    '--Authorization:Policies:canAll:0=platform-admins',
    '--Authorization:Policies:canReveal:0=platform-admins',
    '--Authorization:Policies:canChange:0=config-editors',
    ...extra,
  ];
}

/** Every log line, at debug level, so the reasons for refusals can be checked. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe.each(oneDatabaseKind)('Jwt provider on %s', (kind) => {
  let issuer: TestIssuer;
  let server: TestServer;
  let keyA: SigningKey;
  let log: ReturnType<typeof capturingLogger>;

  const call = (method: string, url: string, token: string | null, body?: unknown): Promise<ApiResponse> =>
    new ApiClient(server.baseUrl).request(method, url, {
      body,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const tokenFor = (claims: JWTPayload, options: Partial<TokenOptions> = {}): Promise<string> =>
    signToken(claims, { key: keyA, issuer: issuer.issuer, ...options });

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    keyA = await signingKey('key-a');
    await issuer.publish(keyA);
    log = capturingLogger();
    server = await startTestServer({
      kind,
      args: jwtArgs(issuer, [
        '--Authentication:Jwt:ClientId=realtime-ui',
        `--Authentication:Jwt:AuthorizeUrl=${issuer.authority}/authorize`,
        `--Authentication:Jwt:TokenUrl=${issuer.authority}/token`,
        '--Authentication:Jwt:Scopes=openid profile realtime-config',
      ]),
      deps: { logger: log.logger },
    });
  });

  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves id, e-mail, name, roles from the groups claim and policies', async () => {
    const me = await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: 'admin-sub',
      email: 'admin@example.com',
      name: 'Ada Admin',
      provider: 'jwt',
      roles: ['platform-admins'],
      policies: ['canAll', 'canChange', 'canReveal'],
      permissions: ['canAll', 'canChange', 'canReveal'],
      passwordChangeRequired: false,
    });
    const editor = await call('GET', '/auth/me', await tokenFor(EDITOR_CLAIMS));
    expect(editor.status).toBe(200);
    expect(editor.body).toMatchObject({
      id: 'editor-sub',
      roles: ['config-editors', 'staff'],
      policies: ['canChange'],
    });
  });

  it('accepts the well-known claim URIs as well as the short names', async () => {
    const me = await call(
      'GET',
      '/api/auth/me',
      await tokenFor({
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier': 'uri-user',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'uri@example.com',
        groups: 'config-editors',
      }),
    );
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: 'uri-user', email: 'uri@example.com', name: null, policies: ['canChange'] });
  });

  it('keeps canAll routes from a canChange token (403) and lets the canAll token through', async () => {
    const editor = await tokenFor(EDITOR_CLAIMS);
    const refused = await call('POST', '/api/services', editor, { name: `refused ${kind}` });
    expect(refused.status).toBe(403);
    const admin = await tokenFor(ADMIN_CLAIMS);
    const found = await call('POST', '/api/services/search', admin, { name: `refused ${kind}` });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ entities: [] });
    const created = await call('POST', '/api/services', admin, { name: `allowed ${kind}` });
    expect(created.status).toBe(201);
  });

  it('lets a canChange user set values only in services where its e-mail is a member', async () => {
    const admin = await tokenFor(ADMIN_CLAIMS);
    const editor = await tokenFor(EDITOR_CLAIMS);
    const service = await call('POST', '/api/services', admin, { name: `members ${kind}` });
    expect(service.status).toBe(201);
    const serviceId = (service.body as { id: string }).id;
    const version = await call('POST', `/api/configversions/${serviceId}`, admin, { versionLabel: '1.0.0' });
    expect(version.status).toBe(201);
    const entries = `/api/configentries/${serviceId}/${(version.body as { id: string }).id}`;
    const entry = await call('POST', entries, admin, { key: 'Feature:Flag', valueType: 1, rawValue: 'old' });
    expect(entry.status).toBe(201);
    const { id, generation } = entry.body as { id: string; generation: number };

    const refused = await call('PUT', `${entries}/set`, editor, [{ id, rawValue: 'new', generation }]);
    expect(refused.status).toBe(403);
    const unchanged = await call('GET', entries, admin);
    expect(unchanged.body).toMatchObject([{ id, rawValue: 'old', generation }]);

    const added = await call('POST', `/api/services/${serviceId}/members`, admin, { userId: 'editor@example.com' });
    expect(added.status).toBe(201);
    const set = await call('PUT', `${entries}/set`, editor, [{ id, rawValue: 'new', generation }]);
    expect(set.status).toBe(200);
    const after = await call('GET', entries, admin);
    expect(after.body).toMatchObject([{ id, rawValue: 'new' }]);
  });

  it('answers 401 without a bearer token, and never reads a token from a cookie', async () => {
    const token = await tokenFor(ADMIN_CLAIMS);
    expect((await call('GET', '/api/auth/me', null)).status).toBe(401);
    const cookie = await new ApiClient(server.baseUrl).get('/api/auth/me', {
      headers: { cookie: `access_token=${token}; rc_session=${token}` },
    });
    expect(cookie.status).toBe(401);
    const otherScheme = await new ApiClient(server.baseUrl).get('/api/auth/me', {
      headers: { authorization: `Token ${token}` },
    });
    expect(otherScheme.status).toBe(401);
    expect((await call('GET', '/api/auth/me', 'not-a-jwt')).status).toBe(401);
  });

  it('refuses forged, expired, premature and misaddressed tokens with 401', async () => {
    const valid = await tokenFor(ADMIN_CLAIMS);
    const [header, payload, signature] = valid.split('.');
    const claims = { ...ADMIN_CLAIMS, iss: issuer.issuer, aud: AUDIENCE, exp: nowSeconds() + 3600 };

    const otherKey = await signingKey('key-a');
    const unknownKid = await signingKey('key-unknown');
    const pemSecret = new TextEncoder().encode(await exportSPKI(keyA.publicKey));
    const jwkSecret = new TextEncoder().encode(JSON.stringify(issuer.published[0]));
    const hmac = (secret: Uint8Array) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'key-a' }).sign(secret);

    const tampered = `${header}.${b64url({ ...decodePart(payload), sub: 'someone-else' })}.${signature}`;
    const [editorHeader, editorPayload, editorSignature] = (await tokenFor(EDITOR_CLAIMS)).split('.');
    const escalated = `${editorHeader}.${b64url({ ...decodePart(editorPayload), groups: ['platform-admins'] })}.${editorSignature}`;

    const refused: Record<string, string> = {
      'alg none': `${b64url({ alg: 'none', kid: 'key-a', typ: 'JWT' })}.${b64url(claims)}.`,
      'alg none with the original signature': `${b64url({ alg: 'none', kid: 'key-a' })}.${payload}.${signature}`,
      'signed by another key with the same kid': await tokenFor(ADMIN_CLAIMS, { key: otherKey }),
      'HS256 with the PEM public key as secret': await hmac(pemSecret),
      'HS256 with the JWK as secret': await hmac(jwkSecret),
      expired: await tokenFor(ADMIN_CLAIMS, { expiresIn: -120 }),
      'not yet valid': await tokenFor(ADMIN_CLAIMS, { notBefore: 300 }),
      'without expiry': await tokenFor(ADMIN_CLAIMS, { expiresIn: null }),
      'wrong audience': await tokenFor(ADMIN_CLAIMS, { audience: 'another-api' }),
      'wrong issuer': await tokenFor(ADMIN_CLAIMS, { issuer: 'https://evil.example.com' }),
      'issuer with a trailing slash': await tokenFor(ADMIN_CLAIMS, { issuer: `${issuer.issuer}/` }),
      'tampered subject': tampered,
      'tampered groups': escalated,
      'unknown kid': await tokenFor(ADMIN_CLAIMS, { key: unknownKid }),
    };
    for (const [why, token] of Object.entries(refused)) {
      const res = await call('GET', '/api/auth/me', token);
      expect({ why, status: res.status }).toEqual({ why, status: 401 });
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    // The valid token still works: the refusals are about the tokens, not the server.
    expect((await call('GET', '/api/auth/me', valid)).status).toBe(200);

    const reasons = log.lines.filter((l) => l.msg === 'bearer token refused').map((l) => l.code);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'ERR_JOSE_ALG_NOT_ALLOWED',
        'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
        'ERR_JWT_EXPIRED',
        'ERR_JWT_CLAIM_VALIDATION_FAILED',
        'ERR_JWKS_NO_MATCHING_KEY',
      ]),
    );
    const logged = JSON.stringify(log.lines);
    for (const token of [valid, ...Object.values(refused)]) expect(logged).not.toContain(token.split('.')[2] || token);
  });

  it('tolerates 60 seconds of clock skew on exp and nbf, not more', async () => {
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS, { expiresIn: -30 }))).status).toBe(200);
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS, { notBefore: 30 }))).status).toBe(200);
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS, { expiresIn: -90 }))).status).toBe(401);
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS, { notBefore: 90 }))).status).toBe(401);
  });

  it('has no sign-in or user routes of its own', async () => {
    const admin = await tokenFor(ADMIN_CLAIMS);
    expect((await call('GET', '/api/users', admin)).status).toBe(404);
    expect((await call('POST', '/auth/login', null, { username: 'admin', password: 'admin' })).status).toBe(404);
  });

  it('answers /auth/config with the Jwt settings for the web UI', async () => {
    const res = await call('GET', '/auth/config', null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: 'jwt',
      jwt: {
        authorizeUrl: `${issuer.authority}/authorize`,
        tokenUrl: `${issuer.authority}/token`,
        clientId: 'realtime-ui',
        scopes: 'openid profile realtime-config',
      },
    });
  });

  // Last: it changes the published key set.
  it('accepts a key published after start once the JWKS cooldown has passed', async () => {
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS))).status).toBe(200);
    const keyB = await signingKey('key-b', 'ES256');
    await issuer.publish(keyB);
    const rotated = await tokenFor(ADMIN_CLAIMS, { key: keyB });
    const fetchesBefore = issuer.jwksFetches;

    // jose refetches on an unknown kid at most once per 30 s cooldown, so a flood of made-up kids
    // cannot turn into a flood of JWKS requests. Move jose's clock past it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 31_000);
    const res = await call('GET', '/api/auth/me', rotated);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'admin-sub' });
    expect(issuer.jwksFetches).toBe(fetchesBefore + 1);
    // The old key stays valid while it is published.
    expect((await call('GET', '/api/auth/me', await tokenFor(ADMIN_CLAIMS))).status).toBe(200);
  });
});

describe('Jwt provider settings', () => {
  let issuer: TestIssuer;
  let key: SigningKey;

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    key = await signingKey('key-1', 'PS256');
    await issuer.publish(key);
  });
  afterAll(async () => {
    await issuer?.close();
  });

  const me = (server: TestServer, token: string) =>
    server.client().get('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });

  it('accepts any audience with TokenValidationParameters:ValidateAudience=false', async () => {
    const server = await startTestServer({
      args: jwtArgs(issuer, ['--Authentication:Jwt:TokenValidationParameters:ValidateAudience=false']),
    });
    try {
      const other = await signToken(ADMIN_CLAIMS, { key, issuer: issuer.issuer, audience: 'another-api' });
      expect((await me(server, other)).status).toBe(200);
      // The issuer is still checked.
      const wrongIssuer = await signToken(ADMIN_CLAIMS, { key, issuer: 'https://evil.example.com' });
      expect((await me(server, wrongIssuer)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('with the default RoleClaimTypes, a `name` claim counts as a role (why the docs drop it)', async () => {
    const server = await startTestServer({
      args: jwtArgs(issuer).filter((arg) => !arg.startsWith('--Authorization:RoleClaimTypes')),
    });
    try {
      const token = await signToken({ sub: 'mallory', name: 'platform-admins' }, { key, issuer: issuer.issuer });
      const res = await me(server, token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ roles: ['platform-admins'], policies: ['canAll', 'canChange', 'canReveal'] });
    } finally {
      await server.close();
    }
  });

  it('takes the issuer from the discovery document, not from Authority', async () => {
    issuer.issuerOverride = 'https://login.example.com/realms/main';
    const server = await startTestServer({ args: jwtArgs(issuer) });
    try {
      const good = await signToken(ADMIN_CLAIMS, { key, issuer: 'https://login.example.com/realms/main' });
      expect((await me(server, good)).status).toBe(200);
      const authority = await signToken(ADMIN_CLAIMS, { key, issuer: issuer.authority });
      expect((await me(server, authority)).status).toBe(401);
    } finally {
      issuer.issuerOverride = null;
      await server.close();
    }
  });

  it('accepts any issuer with TokenValidationParameters:ValidateIssuer=false', async () => {
    const server = await startTestServer({
      args: jwtArgs(issuer, ['--Authentication:Jwt:TokenValidationParameters:ValidateIssuer=false']),
    });
    try {
      const other = await signToken(ADMIN_CLAIMS, { key, issuer: 'https://elsewhere.example.com' });
      expect((await me(server, other)).status).toBe(200);
      const wrongAudience = await signToken(ADMIN_CLAIMS, { key, issuer: issuer.issuer, audience: 'another-api' });
      expect((await me(server, wrongAudience)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('does not start when the discovery document cannot be read, naming Authentication:Jwt:Authority', async () => {
    const gone = await new TestIssuer().start();
    const authority = gone.authority;
    await gone.close();
    const database = await createTestDatabase('sqlite');
    await expect(
      startTestServer({
        database,
        args: [...jwtArgs(issuer), `--Authentication:Jwt:Authority=${authority}`],
      }),
    ).rejects.toThrow(/Authentication:Jwt:Authority/);
    // An Authority whose discovery document is missing is refused as well.
    await expect(
      startTestServer({
        database,
        args: [...jwtArgs(issuer), `--Authentication:Jwt:Authority=${issuer.authority}/nothing-here`],
      }),
    ).rejects.toThrow(/Authentication:Jwt:Authority.*HTTP 404/);
  });

  it('does not start with an HTTP Authority unless RequireHttpsMetadata is false', async () => {
    await expect(
      startTestServer({
        args: [...jwtArgs(issuer), '--Authentication:Jwt:RequireHttpsMetadata=true'],
      }),
    ).rejects.toThrow(/Authentication:Jwt:(Authority|RequireHttpsMetadata)/);
  });
});
