import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { RealtimeConfigGrpcService, ValueType, type SubscriptionEvent } from '@realtime-config/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { entriesByKey, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { ApiClient, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

const OK = 0;
const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;

/** One RPC's outcome as a gRPC status code (the numbers are the same for grpc-js and Connect-ES). */
type Outcome = Promise<number>;

/** The four RPCs, each called with an optional authorization header, over one client path. */
interface RpcPath {
  readonly name: string;
  getConfig(serviceId: string, auth?: string): Outcome;
  isVersionExists(serviceId: string, auth?: string): Outcome;
  createVersion(serviceId: string, version: string, auth?: string): Outcome;
  /** Opens StartSubscribe: OK once the first event arrives, or the status it ended with. */
  subscribe(serviceId: string, versionId: string, auth?: string): Outcome;
}

const entries = [{ key: 'Greeting', name: 'Greeting', valueType: ValueType.STRING, value: 'hello' }];
const classes = [{ name: 'AppOptions', entries }];

function metadataOf(auth?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (auth !== undefined) metadata.set('authorization', auth);
  return metadata;
}

const grpcCode = (promise: Promise<unknown>): Outcome =>
  promise.then(
    () => OK,
    (err: grpc.ServiceError) => err.code,
  );
const connectCode = (promise: Promise<unknown>): Outcome =>
  promise.then(
    () => OK,
    (err: unknown) => ConnectError.from(err).code,
  );
const headersOf = (auth?: string) => (auth === undefined ? {} : { headers: { authorization: auth } });

/** grpc-js over h2c: GetConfig and StartSubscribe take the native fast path, the others go through Connect-ES. */
function grpcJsPath(client: () => GrpcTestClient): RpcPath {
  return {
    name: 'grpc-js (native path)',
    getConfig: (serviceId, auth) => grpcCode(client().getConfig({ serviceId, version: '1.0.0' }, metadataOf(auth))),
    isVersionExists: (serviceId, auth) =>
      grpcCode(client().isVersionExists({ serviceId, version: '1.0.0' }, metadataOf(auth))),
    createVersion: (serviceId, version, auth) =>
      grpcCode(client().createVersion({ serviceId, version, classes }, metadataOf(auth))),
    async subscribe(serviceId, versionId, auth) {
      const sub = client().subscribe({ serviceId, versionId }, metadataOf(auth));
      await sub.until((s) => s.events.length > 0 || s.status !== undefined);
      sub.cancel();
      return sub.events.length > 0 ? OK : sub.status!.code;
    },
  };
}

/** The Connect protocol over HTTP/1.1: every RPC is served by the Connect-ES handlers. */
function connectPath(client: () => Client<typeof RealtimeConfigGrpcService>): RpcPath {
  return {
    name: 'Connect over HTTP/1.1',
    getConfig: (serviceId, auth) => connectCode(client().getConfig({ serviceId, version: '1.0.0' }, headersOf(auth))),
    isVersionExists: (serviceId, auth) =>
      connectCode(client().isVersionExists({ serviceId, version: '1.0.0' }, headersOf(auth))),
    createVersion: (serviceId, version, auth) =>
      connectCode(client().createVersion({ serviceId, version, classes }, headersOf(auth))),
    async subscribe(serviceId, versionId, auth) {
      const stream = new ConnectStream<SubscriptionEvent>(
        (signal) => client().startSubscribe({ serviceId, versionId }, { signal, ...headersOf(auth) }),
        (messages) => messages.length > 0,
      );
      await stream.done;
      return stream.messages.length > 0 ? OK : (stream.error?.code ?? Code.Unknown);
    },
  };
}

describe.each(oneDatabaseKind)('gRPC with Grpc:RequireAuthentication on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let connectClient: Client<typeof RealtimeConfigGrpcService>;
  let serviceId: string;
  let otherServiceId: string;
  let versionId: string;
  let key: { id: string; name: string; key: string };
  let otherKey: string;
  let revokedKey: string;

  const createKey = async (sid: string, name: string) => {
    const res = await admin.post(`/api/services/${sid}/apikeys`, { name });
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string; key: string };
  };

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Grpc:RequireAuthentication=true'] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    connectClient = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    serviceId = (await admin.post('/api/services', { name: 'secured' })).body.id;
    otherServiceId = (await admin.post('/api/services', { name: 'other' })).body.id;
    key = await createKey(serviceId, 'deployer');
    otherKey = (await createKey(otherServiceId, 'other deployer')).key;
    const revoked = await createKey(serviceId, 'revoked');
    revokedKey = revoked.key;
    expect((await admin.delete(`/api/services/${serviceId}/apikeys/${revoked.id}`)).status).toBe(204);
    ({ versionId } = await grpcClient.createVersion(
      { serviceId, version: '1.0.0', classes },
      metadataOf(`Bearer ${key.key}`),
    ));
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  const paths: Array<() => RpcPath> = [() => grpcJsPath(() => grpcClient), () => connectPath(() => connectClient)];

  const rejected: Array<[string, () => string | undefined, number]> = [
    ['no authorization header', () => undefined, UNAUTHENTICATED],
    ['a header that is not Bearer', () => `Basic ${Buffer.from('admin:x').toString('base64')}`, UNAUTHENTICATED],
    ['Bearer without a token', () => 'Bearer ', UNAUTHENTICATED],
    ['the key without "Bearer"', () => key.key, UNAUTHENTICATED],
    ['an unknown API key', () => `Bearer rck_${randomBytes(32).toString('base64url')}`, UNAUTHENTICATED],
    ['a token no provider accepts', () => 'Bearer eyJhbGciOiJub25lIn0.e30.', UNAUTHENTICATED],
    ['a revoked API key', () => `Bearer ${revokedKey}`, UNAUTHENTICATED],
    ['an API key of another service', () => `Bearer ${otherKey}`, PERMISSION_DENIED],
  ];

  describe.each(paths.map((p) => [p().name, p] as const))('over %s', (_name, pathOf) => {
    it.each(rejected)('refuses every RPC with %s', async (_case, auth, expected) => {
      const path = pathOf();
      const header = auth();
      expect(await path.getConfig(serviceId, header)).toBe(expected);
      expect(await path.isVersionExists(serviceId, header)).toBe(expected);
      expect(await path.createVersion(serviceId, 'refused', header)).toBe(expected);
      expect(await path.subscribe(serviceId, versionId, header)).toBe(expected);
      // Nothing was registered by the refused CreateVersion.
      const versions = await admin.get(`/api/configversions/${serviceId}`);
      expect(JSON.stringify(versions.body)).not.toContain('"refused"');
    });

    it('serves every RPC with the API key of the service', async () => {
      const path = pathOf();
      const header = `Bearer ${key.key}`;
      expect(await path.getConfig(serviceId, header)).toBe(OK);
      expect(await path.isVersionExists(serviceId, header)).toBe(OK);
      expect(await path.createVersion(serviceId, '1.0.0', header)).toBe(OK);
      expect(await path.subscribe(serviceId, versionId, header)).toBe(OK);
      // The scheme is case-insensitive, as in HTTP.
      expect(await path.getConfig(serviceId, `bearer ${key.key}`)).toBe(OK);
    });
  });

  it('delivers changes on an authenticated StartSubscribe stream (native and Connect)', async () => {
    const header = `Bearer ${key.key}`;
    const native = grpcClient.subscribe({ serviceId, versionId }, metadataOf(header));
    const connect = new ConnectStream<SubscriptionEvent>((signal) =>
      connectClient.startSubscribe({ serviceId, versionId }, { signal, headers: { authorization: header } }),
    );
    try {
      await native.until((s) => s.events.length > 0);
      await connect.until((s) => s.messages.length > 0);
      const entry = (await entriesByKey(admin, serviceId, versionId)).Greeting!;
      await setValue(admin, serviceId, versionId, entry, 'changed while subscribed');
      const hasChange = (events: readonly SubscriptionEvent[]) =>
        events.some((e) => e.events.some((c) => c.value === 'changed while subscribed'));
      await native.until((s) => hasChange(s.events));
      await connect.until((s) => hasChange(s.messages));
      expect(native.error).toBeUndefined();
      expect(connect.error).toBeUndefined();
    } finally {
      native.cancel();
      await connect.cancel();
    }
  });

  it('audits CreateVersion as the API key and records when the key was last used', async () => {
    const header = metadataOf(`Bearer ${key.key}`);
    await grpcClient.createVersion({ serviceId, version: '2.0.0', classes }, header);
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Version' });
    const created = (audit.body.entities as Array<Record<string, any>>).filter((r) => r.action === 'Created');
    expect(created.length).toBeGreaterThanOrEqual(2);
    for (const record of created) {
      expect(record).toMatchObject({ userId: `apikey:${key.id}`, userName: 'deployer' });
    }
    const listed = (await admin.get(`/api/services/${serviceId}/apikeys`)).body as Array<Record<string, any>>;
    const used = listed.find((k) => k.id === key.id)!;
    expect(Date.parse(used.lastUsedAt)).not.toBeNaN();
    expect(listed.find((k) => k.name === 'revoked')!.lastUsedAt).toBeNull();
  });

  it('refuses a key once it is revoked', async () => {
    const fresh = await createKey(serviceId, 'short-lived');
    const header = `Bearer ${fresh.key}`;
    expect(await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf(header)))).toBe(OK);
    expect((await admin.delete(`/api/services/${serviceId}/apikeys/${fresh.id}`)).status).toBe(204);
    expect(await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf(header)))).toBe(
      UNAUTHENTICATED,
    );
    expect(await connectCode(connectClient.getConfig({ serviceId, version: '1.0.0' }, headersOf(header)))).toBe(
      UNAUTHENTICATED,
    );
  });

  it('ends open streams (native and Connect) with UNAUTHENTICATED once their API key is deleted', async () => {
    const doomed = await createKey(serviceId, 'deleted while streaming');
    const header = `Bearer ${doomed.key}`;
    const native = grpcClient.subscribe({ serviceId, versionId }, metadataOf(header));
    const connect = new ConnectStream<SubscriptionEvent>((signal) =>
      connectClient.startSubscribe({ serviceId, versionId }, { signal, headers: { authorization: header } }),
    );
    try {
      await native.until((s) => s.events.length > 0);
      await connect.until((s) => s.messages.length > 0);
      expect((await admin.delete(`/api/services/${serviceId}/apikeys/${doomed.id}`)).status).toBe(204);
      await native.until((s) => s.status !== undefined);
      await connect.done;
      expect(native.status?.code).toBe(UNAUTHENTICATED);
      expect(connect.error?.code).toBe(Code.Unauthenticated);
      // A change made afterwards reaches neither.
      const seen = [native.events.length, connect.messages.length];
      const entry = (await entriesByKey(admin, serviceId, versionId)).Greeting!;
      await setValue(admin, serviceId, versionId, entry, 'after the key was deleted');
      await server.flushChanges();
      expect([native.events.length, connect.messages.length]).toEqual(seen);
    } finally {
      native.cancel();
      await connect.cancel();
    }
  });

  it('refuses CreateVersion to a developer who is not a member of the service, over native gRPC and Connect', async () => {
    const outsider = await server.userWithRole('grpc-outsider', 'developer');
    const cookie = outsider.sessionCookie ?? '';
    const nativeMetadata = new grpc.Metadata();
    nativeMetadata.set('cookie', cookie);
    const register = (version: string) => ({ serviceId, version, classes });
    expect(await grpcCode(grpcClient.createVersion(register('outsider-native'), nativeMetadata))).toBe(
      PERMISSION_DENIED,
    );
    expect(await connectCode(connectClient.createVersion(register('outsider-connect'), { headers: { cookie } }))).toBe(
      PERMISSION_DENIED,
    );
    // Reading stays open to every canChange user, as over REST.
    expect(await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }, nativeMetadata))).toBe(OK);
    const versions = JSON.stringify((await admin.get(`/api/configversions/${serviceId}`)).body);
    expect(versions).not.toContain('outsider-');

    // Once a member, the same session registers.
    expect((await admin.post(`/api/services/${serviceId}/members`, { userId: 'grpc-outsider' })).status).toBe(201);
    expect(await grpcCode(grpcClient.createVersion(register('member-native'), nativeMetadata))).toBe(OK);
    expect(await connectCode(connectClient.createVersion(register('member-connect'), { headers: { cookie } }))).toBe(
      OK,
    );
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Version' });
    expect(audit.body.entities[0]).toMatchObject({ userId: 'grpc-outsider', action: 'Created' });
  });

  it('ignores a session cookie sent from another origin', async () => {
    const developer = await server.userWithRole('cross-origin-dev', 'developer');
    const cookie = developer.sessionCookie ?? '';
    const call = (headers: Record<string, string>) =>
      connectCode(connectClient.getConfig({ serviceId, version: '1.0.0' }, { headers: { cookie, ...headers } }));
    expect(await call({ origin: server.baseUrl })).toBe(OK);
    expect(await call({ 'sec-fetch-site': 'same-origin' })).toBe(OK);
    expect(await call({ origin: 'http://127.0.0.1:1' })).toBe(UNAUTHENTICATED);
    expect(await call({ 'sec-fetch-site': 'same-site', origin: server.baseUrl })).toBe(UNAUTHENTICATED);
    expect(await call({ 'sec-fetch-site': 'cross-site' })).toBe(UNAUTHENTICATED);
  });

  it("accepts the web console's session cookie over gRPC-Web and Connect: canChange users only, never after sign-out", async () => {
    const developer = await server.userWithRole('console-dev', 'developer');
    const noRole = await server.userWithRole('console-none', 'developer');
    const cookieOf = (client: ApiClient) => ({ headers: { cookie: client.sessionCookie ?? '' } });
    const webClient = createClient(
      RealtimeConfigGrpcService,
      createGrpcWebTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    for (const client of [webClient, connectClient]) {
      expect(await connectCode(client.getConfig({ serviceId, version: '1.0.0' }, cookieOf(developer)))).toBe(OK);
      const stream = new ConnectStream<SubscriptionEvent>(
        (signal) => client.startSubscribe({ serviceId, versionId }, { signal, ...cookieOf(developer) }),
        (messages) => messages.length > 0,
      );
      await stream.done;
      expect(stream.messages.length).toBeGreaterThan(0);
      // A forged or unknown cookie is no sign-in.
      const forged = { headers: { cookie: 'rc_session=abc.def' } };
      expect(await connectCode(client.getConfig({ serviceId, version: '1.0.0' }, forged))).toBe(UNAUTHENTICATED);
    }
    // Demoted to no policy at all: the session is still valid but may not read.
    await server.internals.database.db
      .updateTable('users')
      .set({ role: 'auditor' })
      .where('username', '=', 'console-none')
      .execute();
    expect(await connectCode(connectClient.getConfig({ serviceId, version: '1.0.0' }, cookieOf(noRole)))).toBe(
      PERMISSION_DENIED,
    );
    const signedOut = developer.sessionCookie ?? '';
    expect((await developer.post('/auth/logout')).status).toBe(204);
    expect(
      await connectCode(connectClient.getConfig({ serviceId, version: '1.0.0' }, { headers: { cookie: signedOut } })),
    ).toBe(UNAUTHENTICATED);
  });
});

describe('gRPC with Grpc:RequireAuthentication=false (the shipped quick start)', () => {
  let server: TestServer;
  let grpcClient: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'open' })).body.id;
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  it('serves every RPC on both paths without credentials, and ignores a bogus header', async () => {
    const connectClient = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    for (const path of [grpcJsPath(() => grpcClient), connectPath(() => connectClient)]) {
      expect(await path.createVersion(serviceId, '1.0.0')).toBe(OK);
      expect(await path.getConfig(serviceId)).toBe(OK);
      expect(await path.isVersionExists(serviceId, 'Bearer nonsense')).toBe(OK);
    }
    const { versionId } = await grpcClient.createVersion({ serviceId, version: '1.0.0', classes });
    expect(await grpcJsPath(() => grpcClient).subscribe(serviceId, versionId)).toBe(OK);
    expect(await connectPath(() => connectClient).subscribe(serviceId, versionId)).toBe(OK);

    const admin = await server.admin();
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Version' });
    expect(audit.body.entities[0]).toMatchObject({ userId: 'client-sdk' });
  });
});

describe('gRPC with Grpc:RequireAuthentication=false and a presented API key', () => {
  it('counts the key while it is valid and ends its open stream once it is deleted', async () => {
    const server = await startTestServer();
    const grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      const admin = await server.admin();
      const serviceId = (await admin.post('/api/services', { name: 'open with key' })).body.id as string;
      const otherId = (await admin.post('/api/services', { name: 'open other' })).body.id as string;
      const created = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'app' });
      const header = metadataOf(`Bearer ${created.body.key}`);
      const { versionId } = await grpcClient.createVersion({ serviceId, version: '1.0.0', classes }, header);
      // The key acts for its own service only, even where no credentials are needed.
      expect(await grpcCode(grpcClient.getConfig({ serviceId: otherId, version: '1.0.0' }, header))).toBe(
        PERMISSION_DENIED,
      );
      const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Version' });
      expect(audit.body.entities[0]).toMatchObject({ userId: `apikey:${created.body.id}` });

      const stream = grpcClient.subscribe({ serviceId, versionId }, header);
      await stream.until((s) => s.events.length > 0);
      expect((await admin.delete(`/api/services/${serviceId}/apikeys/${created.body.id}`)).status).toBe(204);
      await stream.until((s) => s.status !== undefined);
      expect(stream.status?.code).toBe(UNAUTHENTICATED);
      // Without the key the same calls are anonymous again.
      expect(await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }))).toBe(OK);
    } finally {
      grpcClient.close();
      await server.close();
    }
  });
});

describe('gRPC with Grpc:RequireAuthentication and the Jwt provider', () => {
  const audience = 'realtime-config';
  let issuer: Server;
  let authority: string;
  let signingKey: CryptoKey;
  let strangerKey: CryptoKey;
  let server: TestServer;
  let grpcClient: GrpcTestClient;
  let serviceId: string;

  const tokenOf = (claims: Record<string, unknown>, key = signingKey) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(authority)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    signingKey = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    // A minimal OpenID provider: the discovery document and the key set.
    issuer = createServer((req, res) => {
      res.writeHead(req.url === '/jwks' || req.url === '/.well-known/openid-configuration' ? 200 : 404, {
        'content-type': 'application/json',
      });
      res.end(
        JSON.stringify(req.url === '/jwks' ? { keys: [jwk] } : { issuer: authority, jwks_uri: `${authority}/jwks` }),
      );
    });
    await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
    authority = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
    server = await startTestServer({
      args: [
        '--Grpc:RequireAuthentication=true',
        '--Authentication:Provider=Jwt',
        `--Authentication:Jwt:Authority=${authority}`,
        `--Authentication:Jwt:Audience=${audience}`,
        '--Authentication:Jwt:RequireHttpsMetadata=false',
        '--Authentication:RoleClaimType=groups',
        '--Authorization:RoleClaimTypes:0=groups',
        '--Authorization:Policies:canAll:0=platform-admins',
      ],
    });
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
    await new Promise<void>((resolve) => issuer.close(() => resolve()));
  });

  it('accepts a token of the Jwt provider and API keys, and audits the token identity', async () => {
    const adminToken = await tokenOf({ sub: 'ada', name: 'Ada Admin', groups: ['platform-admins'] });
    const rest = new ApiClient(server.baseUrl);
    const asAdmin = { headers: { authorization: `Bearer ${adminToken}` } };
    serviceId = (await rest.post('/api/services', { name: 'jwt-secured' }, asAdmin)).body.id;
    expect(serviceId).toEqual(expect.any(String));

    const machineToken = await tokenOf({ sub: 'deploy-bot', name: 'Deploy Bot' });
    const created = await grpcClient.createVersion(
      { serviceId, version: '1.0.0', classes },
      metadataOf(`Bearer ${machineToken}`),
    );
    expect(created.versionId).toEqual(expect.any(String));
    expect(
      await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf(`Bearer ${machineToken}`))),
    ).toBe(OK);
    const audit = await rest.post('/api/auditlogs/search', { serviceId, entityType: 'Version' }, asAdmin);
    expect(audit.body.entities[0]).toMatchObject({ userId: 'deploy-bot', userName: 'Deploy Bot' });

    const forged = await tokenOf({ sub: 'deploy-bot' }, strangerKey);
    for (const header of [`Bearer ${forged}`, undefined]) {
      expect(await grpcCode(grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadataOf(header)))).toBe(
        UNAUTHENTICATED,
      );
    }

    // API keys work under the Jwt provider as well.
    const apiKey = (await rest.post(`/api/services/${serviceId}/apikeys`, { name: 'ci' }, asAdmin)).body.key as string;
    expect(
      await grpcCode(grpcClient.isVersionExists({ serviceId, version: '1.0.0' }, metadataOf(`Bearer ${apiKey}`))),
    ).toBe(OK);
  });
});

describe('the warning while gRPC is anonymous', () => {
  const startLogged = async (requireAuthentication: boolean) => {
    const lines: Array<{ level: number; msg?: string }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const server = await startTestServer({
      args: [`--Grpc:RequireAuthentication=${requireAuthentication}`],
      deps: { logger },
    });
    await server.close();
    return lines.filter((l) => l.level === 40 && /without credentials/.test(l.msg ?? ''));
  };

  it('is logged at every start with Grpc:RequireAuthentication=false, and not with true', async () => {
    expect(await startLogged(false)).toHaveLength(1);
    expect(await startLogged(true)).toHaveLength(0);
  });
});
