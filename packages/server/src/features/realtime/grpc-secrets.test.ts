import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  GetConfigRequestSchema,
  KonfigoGetConfigResponseSchema,
  RealtimeConfigGrpcService,
  SERVICE_PATH,
  ValueType,
  type SubscriptionEvent,
} from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectStream } from '@realtime-config/test-support/connect-stream';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { frameOf, rawGrpcCall } from '@realtime-config/test-support/raw-grpc';
import { entriesByKey, setValue } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

const VERSION = '1.0.0';
const classes = [
  {
    name: 'PaymentOptions',
    entries: [
      { key: 'Payments:Url', name: 'Url', valueType: ValueType.STRING, value: 'https://pay.example' },
      {
        key: 'Payments:ApiKey',
        name: 'ApiKey',
        valueType: ValueType.STRING,
        value: 'registered-secret',
        isSecret: true,
      },
      { key: 'Payments:Retries', name: 'Retries', valueType: ValueType.NUMBER, value: '3', isSecret: true },
    ],
  },
];

/** `auth`: an authorization header value, or `cookie:<the console's session cookie>`. */
const headerOf = (auth: string): [string, string] =>
  auth.startsWith('cookie:') ? ['cookie', auth.slice('cookie:'.length)] : ['authorization', auth];
const metadataOf = (auth?: string) => {
  const metadata = new grpc.Metadata();
  if (auth) metadata.set(...headerOf(auth));
  return metadata;
};
const headersOf = (auth?: string) => (auth ? { headers: Object.fromEntries([headerOf(auth)]) } : {});
/** is_secret of each entry or event by key: what a client keeps off disk whatever its own schema says. */
const secrecyOf = (entries: ReadonlyArray<{ key: string; isSecret: boolean }>) =>
  Object.fromEntries(entries.map((e) => [e.key, e.isSecret]));
const SECRECY = { 'Payments:ApiKey': true, 'Payments:Retries': true, 'Payments:Url': false };

describe.each(databaseKinds)('secret entries over gRPC on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let developer: ApiClient;
  let grpcClient: GrpcTestClient;
  let connectClient: Client<typeof RealtimeConfigGrpcService>;
  let serviceId: string;
  let versionId: string;
  const auth: Record<string, string | undefined> = {};

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({ kind, args: [`--Secrets:MasterKeyFile=${keyFile}`] });
    admin = await server.admin();
    developer = await server.userWithRole('grpc-dev', 'developer');
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    connectClient = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    serviceId = (await admin.post('/api/services', { name: 'grpc-secrets' })).body.id;
    await admin.post(`/api/services/${serviceId}/members`, { userId: 'grpc-dev', role: 'owner' });
    const key = async (scopes: string[]) =>
      (await admin.post(`/api/services/${serviceId}/apikeys`, { name: scopes.join('+'), scopes })).body.key as string;
    auth.anonymous = undefined;
    auth.readKey = `Bearer ${await key(['read', 'register'])}`;
    auth.secretsKey = `Bearer ${await key(['read', 'secrets'])}`;
    const token = async (client: ApiClient) =>
      `Bearer ${(await client.post('/api/auth/tokens', { name: 'grpc', expiresAt: null })).body.token as string}`;
    auth.adminToken = await token(admin);
    auth.adminSession = `cookie:${admin.sessionCookie}`;
    auth.developerToken = await token(developer);
    ({ versionId } = await grpcClient.createVersion(
      { serviceId, version: VERSION, classes },
      metadataOf(auth.readKey),
    ));
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  it('registers is_secret entries as secrets (redacted over REST)', async () => {
    const entries = await entriesByKey(admin, serviceId, versionId);
    expect(entries['Payments:ApiKey']).toMatchObject({ isSecret: true, rawValue: null, redacted: true });
    expect(entries['Payments:Url']).toMatchObject({ isSecret: false, rawValue: 'https://pay.example' });
  });

  it('gives the secrets scope only when a canReveal user creates the key', async () => {
    const refused = await developer.post(`/api/services/${serviceId}/apikeys`, {
      name: 'x',
      scopes: ['read', 'secrets'],
    });
    expect(refused.status, refused.text).toBe(403);
    const allowed = await developer.post(`/api/services/${serviceId}/apikeys`, { name: 'y', scopes: ['read'] });
    expect(allowed.status, allowed.text).toBe(201);
  });

  const cases: Array<[string, boolean]> = [
    ['anonymous', false],
    ['readKey', false],
    ['secretsKey', true],
    ['adminToken', true],
    // The console's session: it shows secrets masked and reveals them over REST, one at a time.
    ['adminSession', false],
    ['developerToken', false],
  ];

  it.each(cases)('GetConfig (native path) for %s: secrets only with the right to them', async (who, sees) => {
    const answer = await grpcClient.getConfig({ serviceId, version: VERSION }, metadataOf(auth[who]));
    const byKey = new Map(answer.entries.map((e) => [e.key, e.value]));
    expect(byKey.get('Payments:Url')).toBe('https://pay.example');
    if (sees) {
      expect(byKey.get('Payments:ApiKey')).toBe('registered-secret');
      expect(byKey.get('Payments:Retries')).toBe('3');
    } else {
      expect(byKey.has('Payments:ApiKey')).toBe(false);
      expect(byKey.has('Payments:Retries')).toBe(false);
    }
  });

  it.each(cases)('GetConfig (Connect path) for %s: secrets only with the right to them', async (who, sees) => {
    const answer = await connectClient.getConfig({ serviceId, version: VERSION }, headersOf(auth[who]));
    expect(answer.entries.some((e) => e.key === 'Payments:ApiKey')).toBe(sees);
    expect(answer.entries.some((e) => e.key === 'Payments:Url')).toBe(true);
  });

  it('streams secret changes only to callers with the right to them, on both paths; the others never see them', async () => {
    const nativeAnonymous = grpcClient.subscribe({ serviceId, versionId }, metadataOf(auth.anonymous));
    const nativeSecrets = grpcClient.subscribe({ serviceId, versionId }, metadataOf(auth.secretsKey));
    const connect = (who: string) =>
      new ConnectStream<SubscriptionEvent>((signal) =>
        connectClient.startSubscribe({ serviceId, versionId }, { signal, ...headersOf(auth[who]) }),
      );
    const connectAnonymous = connect('anonymous');
    const connectSecrets = connect('adminToken');
    const keysOf = (events: readonly SubscriptionEvent[]) => events.flatMap((e) => e.events.map((c) => c.key));
    // The backfill (the whole version) arrives first.
    await nativeAnonymous.until((s) => s.events.length > 0);
    await nativeSecrets.until((s) => s.events.length > 0);
    await connectAnonymous.until((s) => s.messages.length > 0);
    await connectSecrets.until((s) => s.messages.length > 0);
    expect(keysOf(nativeAnonymous.events)).not.toContain('Payments:ApiKey');
    expect(keysOf(nativeSecrets.events)).toContain('Payments:ApiKey');

    const entries = await entriesByKey(admin, serviceId, versionId);
    await setValue(admin, serviceId, versionId, entries['Payments:ApiKey']!, 'rotated-secret');
    await setValue(admin, serviceId, versionId, entries['Payments:Url']!, 'https://pay2.example');
    const sawUrl = (events: readonly SubscriptionEvent[]) =>
      events.some((e) => e.events.some((c) => c.value === 'https://pay2.example'));
    await nativeAnonymous.until((s) => sawUrl(s.events));
    await nativeSecrets.until((s) => sawUrl(s.events));
    await connectAnonymous.until((s) => sawUrl(s.messages));
    await connectSecrets.until((s) => sawUrl(s.messages));
    for (const events of [nativeAnonymous.events, connectAnonymous.messages]) {
      expect(keysOf(events)).not.toContain('Payments:ApiKey');
      expect(keysOf(events)).not.toContain('Payments:Retries');
    }
    for (const events of [nativeSecrets.events, connectSecrets.messages]) {
      const values = events.flatMap((e) => e.events.filter((c) => c.key === 'Payments:ApiKey').map((c) => c.value));
      expect(values).toContain('rotated-secret');
    }
    nativeAnonymous.cancel();
    nativeSecrets.cancel();
    await connectAnonymous.cancel();
    await connectSecrets.cancel();
  });

  it('marks secret entries is_secret in GetConfig and in stream events, on the native and Connect paths', async () => {
    const request = { serviceId, version: VERSION };
    const native = await grpcClient.getConfig(request, metadataOf(auth.secretsKey));
    expect(secrecyOf(native.entries)).toEqual(SECRECY);
    const viaConnect = await connectClient.getConfig(request, headersOf(auth.secretsKey));
    expect(secrecyOf(viaConnect.entries)).toEqual(SECRECY);

    const nativeStream = grpcClient.subscribe({ serviceId, versionId }, metadataOf(auth.secretsKey));
    const connectStream = new ConnectStream<SubscriptionEvent>((signal) =>
      connectClient.startSubscribe({ serviceId, versionId }, { signal, ...headersOf(auth.secretsKey) }),
    );
    await nativeStream.until((s) => s.events.length > 0);
    await connectStream.until((s) => s.messages.length > 0);
    expect(secrecyOf(nativeStream.events[0]!.events)).toEqual(SECRECY);
    expect(secrecyOf(connectStream.messages[0]!.events)).toEqual(SECRECY);

    const entries = await entriesByKey(admin, serviceId, versionId);
    await setValue(admin, serviceId, versionId, entries['Payments:ApiKey']!, 'flagged-secret');
    await setValue(admin, serviceId, versionId, entries['Payments:Url']!, 'https://flagged.example');
    const live = (events: readonly SubscriptionEvent[]) =>
      events
        .flatMap((e) => e.events)
        .filter((c) => c.value === 'flagged-secret' || c.value === 'https://flagged.example');
    await nativeStream.until((s) => live(s.events).length === 2);
    await connectStream.until((s) => live(s.messages).length === 2);
    for (const events of [nativeStream.events, connectStream.messages]) {
      expect(secrecyOf(live(events))).toEqual({ 'Payments:ApiKey': true, 'Payments:Url': false });
    }
    nativeStream.cancel();
    await connectStream.cancel();
  });
});

describe.each(databaseKinds)('is_secret in the Konfigo layout of GetConfig on %s', (kind) => {
  let server: TestServer;
  let serviceId: string;
  let secretsKey: string;

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: [`--Secrets:MasterKeyFile=${keyFile}`, '--Grpc:GetConfigLayout=Konfigo'],
    });
    const admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'konfigo-secrets' })).body.id;
    secretsKey = `Bearer ${(await admin.post(`/api/services/${serviceId}/apikeys`, { name: 's', scopes: ['read', 'register', 'secrets'] })).body.key as string}`;
    const grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      await grpcClient.createVersion({ serviceId, version: VERSION, classes }, metadataOf(secretsKey));
    } finally {
      grpcClient.close();
    }
  });
  afterAll(() => server.close());

  it('sets is_secret on the native path and over the Connect protocol', async () => {
    const request = create(GetConfigRequestSchema, { serviceId, version: VERSION });
    const native = await rawGrpcCall(
      server.baseUrl,
      `${SERVICE_PATH}/GetConfig`,
      frameOf(toBinary(GetConfigRequestSchema, request)),
      {
        authorization: secretsKey,
      },
    );
    expect(native.grpcStatus).toBe(0);
    const answer = fromBinary(KonfigoGetConfigResponseSchema, native.body.subarray(5));
    expect(answer.serviceId).toBe(serviceId);
    expect(secrecyOf(answer.entries)).toEqual(SECRECY);

    const res = await fetch(`${server.baseUrl}${SERVICE_PATH}/GetConfig`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: secretsKey },
      body: JSON.stringify({ serviceId, version: VERSION }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { entries: Array<{ key: string; isSecret?: boolean }> };
    // JSON leaves out false, as protobuf's JSON mapping does for defaults.
    expect(secrecyOf(body.entries.map((e) => ({ key: e.key, isSecret: e.isSecret === true })))).toEqual(SECRECY);
  });
});
