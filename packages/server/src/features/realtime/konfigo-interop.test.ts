import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * The client side of the existing Konfigo SDKs, written from their message layout (not their code):
 * GetConfigResponse is `service_id = 1, version_id = 2, entries = 3`; every other message is the
 * one of service.proto. They send 0001-01-01T00:00:00Z as the first StartSubscribe timestamp.
 */
const KONFIGO_PROTO = `
syntax = "proto3";
package konfigo.client;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

service RealtimeConfigGrpcService {
  rpc GetConfig(GetConfigRequest) returns (GetConfigResponse);
  rpc IsVersionExists(IsVersionExistRequest) returns (IsVersionExistResponse);
  rpc StartSubscribe(StartSubscribeRequest) returns (stream SubscriptionEvent);
}
message GetConfigRequest { string service_id = 1; string version = 2; }
message GetConfigResponse {
  message ConfigEntry {
    string key = 1;
    google.protobuf.StringValue value = 2;
    int32 generation = 3;
    google.protobuf.Timestamp timestamp = 4;
  }
  string service_id = 1;
  string version_id = 2;
  repeated ConfigEntry entries = 3;
}
message IsVersionExistRequest { string service_id = 1; string version = 2; }
message IsVersionExistResponse { google.protobuf.StringValue version_id = 1; }
message StartSubscribeRequest {
  string service_id = 1;
  string version_id = 2;
  google.protobuf.Timestamp timestamp = 3;
}
message SubscriptionEvent {
  message ConfigEvent {
    string key = 1;
    google.protobuf.StringValue value = 2;
    int32 generation = 3;
    google.protobuf.Timestamp timestamp = 4;
  }
  repeated ConfigEvent events = 1;
}
`;

interface KonfigoEntry {
  key: string;
  value: { value: string } | null;
  generation: number;
  timestamp: { seconds: string; nanos: number } | null;
}

type Unary<Req, Res> = (request: Req, callback: (error: grpc.ServiceError | null, response: Res) => void) => void;
interface KonfigoClient extends grpc.Client {
  GetConfig: Unary<
    { serviceId: string; version: string },
    { serviceId: string; versionId: string; entries: KonfigoEntry[] }
  >;
  IsVersionExists: Unary<{ serviceId: string; version: string }, { versionId: { value: string } | null }>;
  StartSubscribe(request: object): grpc.ClientReadableStream<{ events: KonfigoEntry[] }>;
}

function konfigoClient(port: number): KonfigoClient {
  const dir = mkdtempSync(path.join(tmpdir(), 'konfigo-proto-'));
  writeFileSync(path.join(dir, 'konfigo.proto'), KONFIGO_PROTO);
  const definition = protoLoader.loadSync(path.join(dir, 'konfigo.proto'), {
    longs: String,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    konfigo: {
      client: {
        RealtimeConfigGrpcService: new (address: string, credentials: grpc.ChannelCredentials) => KonfigoClient;
      };
    };
  };
  return new pkg.konfigo.client.RealtimeConfigGrpcService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

const call = <Req, Res>(fn: Unary<Req, Res>, client: grpc.Client, request: Req): Promise<Res> =>
  new Promise((resolve, reject) =>
    fn.call(client, request, (error, response) => (error ? reject(error) : resolve(response))),
  );

/** Collects a StartSubscribe stream until `count` events arrived (or it ended). */
function collect(stream: grpc.ClientReadableStream<{ events: KonfigoEntry[] }>, count: number) {
  const events: KonfigoEntry[] = [];
  return new Promise<{ events: KonfigoEntry[]; status?: grpc.ServiceError }>((resolve) => {
    stream.on('data', (message: { events: KonfigoEntry[] }) => {
      events.push(...message.events);
      if (events.length >= count) {
        stream.cancel();
        resolve({ events });
      }
    });
    stream.on('error', (status: grpc.ServiceError) => resolve({ events, status }));
  });
}

const MIN_TIMESTAMP = { seconds: '-62135596800', nanos: 0 };

async function versionWithTwoEntries(admin: ApiClient, name: string) {
  const serviceId = (await admin.post('/api/services', { name })).body.id as string;
  const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id as string;
  for (const [key, rawValue] of [
    ['Db:Host', 'db.internal'],
    ['Db:Password', null],
  ]) {
    expect(
      (await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue })).status,
    ).toBe(201);
  }
  return { serviceId, versionId };
}

describe('Konfigo SDKs, unchanged, against Grpc:GetConfigLayout=Konfigo', () => {
  let server: TestServer;
  let client: KonfigoClient;
  let ids: { serviceId: string; versionId: string };

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Grpc:GetConfigLayout=Konfigo'] });
    ids = await versionWithTwoEntries(await server.admin(), 'konfigo-fleet');
    client = konfigoClient(server.port);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('decodes GetConfig in their layout: service and version ids, then the entries', async () => {
    const answer = await call(client.GetConfig, client, { serviceId: ids.serviceId, version: '1.0.0' });
    expect(answer.serviceId).toBe(ids.serviceId);
    expect(answer.versionId).toBe(ids.versionId);
    expect(answer.entries.map((e) => [e.key, e.value?.value ?? null, e.generation])).toEqual([
      ['Db:Host', 'db.internal', 1],
      ['Db:Password', null, 1],
    ]);
    expect(Number(answer.entries[0]!.timestamp!.seconds)).toBeGreaterThan(1_700_000_000);

    const unknown = await call(client.GetConfig, client, { serviceId: ids.serviceId, version: 'no-such-label' });
    expect(unknown).toMatchObject({ serviceId: ids.serviceId, versionId: '', entries: [] });
  });

  it('answers in their layout over the Connect protocol too', async () => {
    const res = await fetch(`${server.baseUrl}/konfigo.client.RealtimeConfigGrpcService/GetConfig`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceId: ids.serviceId, version: '1.0.0' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { serviceId: string; versionId: string; entries: Array<{ key: string }> };
    expect(body).toMatchObject({ serviceId: ids.serviceId, versionId: ids.versionId });
    expect(body.entries.map((e) => e.key)).toEqual(['Db:Host', 'Db:Password']);
  });

  it('subscribes from 0001-01-01T00:00:00Z and gets every entry as catch-up', async () => {
    const version = await call(client.IsVersionExists, client, { serviceId: ids.serviceId, version: '1.0.0' });
    expect(version.versionId?.value).toBe(ids.versionId);
    const stream = client.StartSubscribe({
      serviceId: ids.serviceId,
      versionId: ids.versionId,
      timestamp: MIN_TIMESTAMP,
    });
    const { events, status } = await collect(stream, 2);
    expect(status).toBeUndefined();
    expect(events.map((e) => e.key).sort()).toEqual(['Db:Host', 'Db:Password']);
  });
});

describe('the whole Timestamp range in StartSubscribe (layout Spec)', () => {
  let server: TestServer;
  let client: KonfigoClient;
  let ids: { serviceId: string; versionId: string };

  beforeAll(async () => {
    server = await startTestServer();
    ids = await versionWithTwoEntries(await server.admin(), 'timestamps');
    client = konfigoClient(server.port);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it.each([
    ['0001-01-01T00:00:00Z', MIN_TIMESTAMP, 2],
    ['1969-12-31T23:59:59.999Z', { seconds: '-1', nanos: 999_000_000 }, 2],
  ])('backfills every entry from %s', async (_name, timestamp, expected) => {
    const { events, status } = await collect(client.StartSubscribe({ ...ids, timestamp }), expected);
    expect(status).toBeUndefined();
    expect(events).toHaveLength(expected);
  });

  it('takes 9999-12-31T23:59:59.999999999Z (no change is after it)', async () => {
    const stream = client.StartSubscribe({ ...ids, timestamp: { seconds: '253402300799', nanos: 999_999_999 } });
    const outcome = collect(stream, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stream.cancel();
    const { events, status } = await outcome;
    expect(events).toEqual([]);
    expect(status?.code).toBe(grpc.status.CANCELLED);
  });

  it.each([
    ['a second before 0001-01-01', { seconds: '-62135596801', nanos: 0 }],
    ['a second after 9999-12-31T23:59:59', { seconds: '253402300800', nanos: 0 }],
    ['negative nanos', { seconds: '0', nanos: -1 }],
    ['a billion nanos', { seconds: '0', nanos: 1_000_000_000 }],
  ])('refuses %s with INVALID_ARGUMENT', async (_name, timestamp) => {
    const { status } = await collect(client.StartSubscribe({ ...ids, timestamp }), 1);
    expect(status?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
