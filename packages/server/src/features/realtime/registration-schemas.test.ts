import type { ServiceError } from '@grpc/grpc-js';
import type { ConnectError } from '@connectrpc/connect';
import { Code, createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RealtimeConfigGrpcService, ValueType, type CreateVersionRequest } from '@realtime-config/protocol';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CreateVersionRequestSchema } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

type Request = MessageInitShape<typeof CreateVersionRequestSchema>;
type ConfigEntry = NonNullable<NonNullable<Request['classes']>[number]['entries']>[number];

/** One way of calling CreateVersion: the native gRPC path (grpc-js) or the Connect-ES one (Connect protocol). */
interface Caller {
  readonly name: string;
  createVersion(request: Request): Promise<string>;
  /** The gRPC status and message of a refused call. */
  refusal(request: Request): Promise<{ code: number; message: string }>;
}

/**
 * CreateVersion carries each entry's schema (field 8, JSON text): stored for the keys a
 * registration adds, checked against the default (INVALID_ARGUMENT naming the key), refused when it
 * is not a schema; keys already in the version keep theirs. The same on both gRPC paths.
 */
describe.each(databaseKinds)('schemas registered by CreateVersion on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpc: GrpcTestClient;
  let connect: Client<typeof RealtimeConfigGrpcService>;
  let serviceId: string;
  const callers: Caller[] = [];

  const entry = (key: string, value: string | undefined, schema: object | string | undefined): ConfigEntry => ({
    key,
    name: key,
    valueType: ValueType.NUMBER,
    value,
    schema: typeof schema === 'object' ? JSON.stringify(schema) : schema,
  });
  const request = (version: string, entries: ConfigEntry[]): Request => ({
    serviceId,
    version,
    classes: [{ name: 'Pool', entries }],
  });
  const entriesOf = async (versionId: string) =>
    (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
      id: string;
      key: string;
      rawValue: string | null;
      schema: unknown;
    }>;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `registered-schemas-${kind}` })).body.id;
    grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    connect = createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ httpVersion: '1.1', baseUrl: server.baseUrl }),
    );
    callers.push(
      {
        name: 'native gRPC',
        createVersion: async (r) => (await grpc.createVersion(r)).versionId,
        refusal: (r) =>
          grpc.createVersion(r).then(
            () => ({ code: 0, message: 'accepted' }),
            (e: ServiceError) => ({ code: e.code, message: e.details }),
          ),
      },
      {
        name: 'Connect',
        createVersion: async (r) => (await connect.createVersion(r as CreateVersionRequest)).versionId,
        refusal: (r) =>
          connect.createVersion(r as CreateVersionRequest).then(
            () => ({ code: 0, message: 'accepted' }),
            (e: ConnectError) => ({ code: e.code, message: e.rawMessage }),
          ),
      },
    );
  });
  afterAll(async () => {
    grpc.close();
    await server.close();
  });

  it('stores the schema of each key it adds; keys already there keep theirs', async () => {
    for (const caller of callers) {
      const label = `stored-${caller.name}`;
      const versionId = await caller.createVersion(
        request(label, [entry('Pool:Size', '10', { minimum: 1, maximum: 100 }), entry('Pool:Idle', '5', undefined)]),
      );
      const stored = await entriesOf(versionId);
      expect(stored.find((e) => e.key === 'Pool:Size')?.schema, caller.name).toEqual({ minimum: 1, maximum: 100 });
      expect(stored.find((e) => e.key === 'Pool:Idle')?.schema, caller.name).toBeNull();
      // The same label again, with other rules: the stored keys are untouched, a new key gets its own.
      await caller.createVersion(
        request(label, [entry('Pool:Size', '10', { maximum: 5000 }), entry('Pool:Max', '7', { maximum: 9 })]),
      );
      const again = await entriesOf(versionId);
      expect(again.find((e) => e.key === 'Pool:Size')?.schema).toEqual({ minimum: 1, maximum: 100 });
      expect(again.find((e) => e.key === 'Pool:Max')?.schema).toEqual({ maximum: 9 });
    }
  });

  it('refuses a default that breaks its own schema with INVALID_ARGUMENT naming the key; nothing is registered', async () => {
    for (const caller of callers) {
      const label = `broken-${caller.name}`;
      const refused = await caller.refusal(request(label, [entry('Pool:Size', '1000', { maximum: 100 })]));
      expect(refused.code, caller.name).toBe(Code.InvalidArgument);
      expect(refused.message).toContain('Pool:Size');
      expect(refused.message).toContain('must be <= 100');
      expect((await grpc.isVersionExists({ serviceId, version: label })).versionId).toBeUndefined();
    }
  });

  it('refuses a schema that is not one, or not JSON, with INVALID_ARGUMENT', async () => {
    for (const caller of callers) {
      for (const schema of ['{"maximum":"many"}', 'not json', '{"$ref":"https://example.com/s.json"}']) {
        const refused = await caller.refusal(request(`bad-${caller.name}`, [entry('Pool:Size', '1', schema)]));
        expect(refused.code, `${caller.name} ${schema}`).toBe(Code.InvalidArgument);
        expect(refused.message).toContain('Pool:Size');
      }
    }
  });

  it('carries a value over from the previous version only when it meets the declared schema', async () => {
    // A service of its own: values carry over from the newest earlier version of the service.
    serviceId = (await admin.post('/api/services', { name: `carried-schemas-${kind}` })).body.id;
    const first = await callers[0]!.createVersion(request('carry-1', [entry('Pool:Size', '50', undefined)]));
    const size = (await entriesOf(first)).find((e) => e.key === 'Pool:Size')!;
    expect(size.rawValue).toBe('50');
    const tighter = await callers[0]!.createVersion(request('carry-2', [entry('Pool:Size', '10', { maximum: 20 })]));
    expect((await entriesOf(tighter)).find((e) => e.key === 'Pool:Size')?.rawValue).toBe('10');
    await admin.put(`/api/configentries/${serviceId}/${tighter}/set`, [
      { id: (await entriesOf(tighter)).find((e) => e.key === 'Pool:Size')!.id, rawValue: '15', generation: 1 },
    ]);
    const looser = await callers[0]!.createVersion(request('carry-3', [entry('Pool:Size', '30', { maximum: 90 })]));
    expect((await entriesOf(looser)).find((e) => e.key === 'Pool:Size')?.rawValue).toBe('15');
  });
});
