import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import {
  CreateVersionRequestSchema,
  GetConfigRequestSchema,
  SERVICE_PATH,
  ValueType,
  type CreateVersionRequest,
} from '@realtime-config/protocol';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { frameOf, rawGrpcCall } from '@realtime-config/test-support/raw-grpc';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const CAP = 64 * 1024;
const RESOURCE_EXHAUSTED = 8;
const INVALID_ARGUMENT = 3;

type CreateInit = MessageInitShape<typeof CreateVersionRequestSchema>;
const encodeCreate = (init: CreateInit) =>
  toBinary(CreateVersionRequestSchema, create(CreateVersionRequestSchema, init));

/** A CreateVersion request whose one default value has the given size. */
function registration(serviceId: string, version: string, valueBytes: number): CreateInit {
  return {
    serviceId,
    version,
    classes: [
      {
        name: 'Big',
        entries: [{ key: 'Big:Value', name: 'Value', valueType: ValueType.STRING, value: 'v'.repeat(valueBytes) }],
      },
    ],
  };
}

describe('received gRPC messages are capped before and after decompression', () => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ args: [`--Grpc:MaxReceiveMessageBytes=${CAP}`] });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'capped' })).body.id;
  });
  afterAll(() => server?.close());

  const versions = async () => (await admin.get(`/api/configversions/${serviceId}`)).body as unknown[];
  /** 16 MiB of zeros: 16 KiB gzipped, under the cap, a bomb for a server that inflates without a limit. */
  const zeros = Buffer.alloc(16 * 1024 * 1024);

  it('answers RESOURCE_EXHAUSTED on the native path for an oversized and for a gzip-bomb message', async () => {
    const oversized = await rawGrpcCall(
      server.baseUrl,
      `${SERVICE_PATH}/CreateVersion`,
      frameOf(encodeCreate(registration(serviceId, 'too-big', CAP + 1))),
    );
    expect(oversized.grpcStatus).toBe(RESOURCE_EXHAUSTED);

    const inflated = await rawGrpcCall(server.baseUrl, `${SERVICE_PATH}/CreateVersion`, frameOf(zeros, true), {
      'grpc-encoding': 'gzip',
    });
    expect(inflated.grpcStatus).toBe(RESOURCE_EXHAUSTED);
    expect(inflated.rawMessage).toContain(String(CAP));
    expect(await versions()).toEqual([]);
  });

  it('answers a real gRPC client RESOURCE_EXHAUSTED and ends its stream, however much it still had to send', async () => {
    const client = new GrpcTestClient(`127.0.0.1:${server.port}`, undefined, {
      'grpc.max_send_message_length': 64 * 1024 * 1024,
    });
    try {
      const error = await client
        .createVersion(registration(serviceId, 'far-too-big', 8 * 1024 * 1024))
        .catch((e: grpc.ServiceError) => e);
      expect((error as grpc.ServiceError).code).toBe(RESOURCE_EXHAUSTED);
      // The connection is still good for the next call.
      expect((await client.isVersionExists({ serviceId, version: 'nope' })).versionId).toBeUndefined();
    } finally {
      client.close();
    }
    expect(await versions()).toEqual([]);
  });

  it('answers first, then resets with NO_ERROR the stream of a client that keeps sending an oversized message', async () => {
    const session = http2.connect(server.baseUrl);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': `${SERVICE_PATH}/CreateVersion`,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      stream.on('error', () => undefined);
      const answered = new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
      const header = Buffer.alloc(5);
      header.writeUInt32BE(CAP * 16, 1);
      // The header announces 16 times the cap; the request stays open, as a client mid-upload would.
      stream.write(Buffer.concat([header, Buffer.alloc(32 * 1024)]));
      expect((await answered)['grpc-status']).toBe(String(RESOURCE_EXHAUSTED));
      expect(await closed).toBe(http2.constants.NGHTTP2_NO_ERROR);
    } finally {
      session.destroy();
    }
    expect(await versions()).toEqual([]);
  });

  it('still takes a gzip-compressed message within the limit on the native path', async () => {
    const answer = await rawGrpcCall(
      server.baseUrl,
      `${SERVICE_PATH}/CreateVersion`,
      frameOf(encodeCreate(registration(serviceId, 'compressed', 1000)), true),
      { 'grpc-encoding': 'gzip' },
    );
    expect(answer.grpcStatus).toBe(0);
    expect((await versions()).length).toBe(1);
  });

  it('answers RESOURCE_EXHAUSTED over gRPC-Web and the Connect protocol for a gzip bomb', async () => {
    const envelope = frameOf(zeros, true);
    const web = await fetch(`${server.baseUrl}${SERVICE_PATH}/CreateVersion`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web+proto', 'grpc-encoding': 'gzip', 'x-grpc-web': '1' },
      body: new Uint8Array(envelope),
    });
    const webText = Buffer.from(await web.arrayBuffer()).toString('latin1');
    expect(web.headers.get('grpc-status') ?? /grpc-status:\s*(\d+)/.exec(webText)?.[1]).toBe(
      String(RESOURCE_EXHAUSTED),
    );

    const connect = await fetch(`${server.baseUrl}${SERVICE_PATH}/CreateVersion`, {
      method: 'POST',
      headers: { 'content-type': 'application/proto', 'content-encoding': 'gzip', 'connect-protocol-version': '1' },
      body: new Uint8Array(gzipSync(zeros)),
    });
    expect(connect.status).toBe(429);
    expect(((await connect.json()) as { code: string }).code).toBe('resource_exhausted');
    expect(await versions()).toHaveLength(1);
  });
});

describe('CreateVersion applies the REST limits to every field', () => {
  let server: TestServer;
  let admin: ApiClient;
  let client: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    client = new GrpcTestClient(`127.0.0.1:${server.port}`, undefined, {
      'grpc.max_send_message_length': 16 * 1024 * 1024,
    });
    serviceId = (await admin.post('/api/services', { name: 'limited' })).body.id;
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  const entry = (key: string, extra: Record<string, unknown> = {}) => ({
    key,
    name: key,
    valueType: ValueType.STRING,
    ...extra,
  });
  const refused = async (classes: CreateVersionRequest['classes'] | CreateInit['classes']) =>
    client.createVersion({ serviceId, version: 'refused', classes }).then(
      () => 0,
      (error: grpc.ServiceError) => ({ code: error.code, details: error.details }),
    );

  it.each([
    [
      'a default value over 256 KiB',
      [{ name: 'C', entries: [entry('A', { value: 'x'.repeat(256 * 1024 + 1) })] }],
      'entries[0].value',
    ],
    ['a key over 512 characters', [{ name: 'C', entries: [entry('k'.repeat(513))] }], 'entries[0].key'],
    [
      'a name over 200 characters',
      [{ name: 'C', entries: [entry('A', { name: 'n'.repeat(201) })] }],
      'entries[0].name',
    ],
    [
      'a description over 4000 characters',
      [{ name: 'C', entries: [entry('A', { description: 'd'.repeat(4001) })] }],
      'entries[0].description',
    ],
    [
      'allowed values over 4000 characters',
      [{ name: 'C', entries: [entry('A', { valueType: ValueType.ENUM, enumValues: 'e|'.repeat(2001) })] }],
      'enumValues',
    ],
    ['a class name over 200 characters', [{ name: 'c'.repeat(201), entries: [entry('A')] }], 'classes[0].name'],
    [
      'a class description over 4000 characters',
      [{ name: 'C', description: 'd'.repeat(4001), entries: [entry('A')] }],
      'classes[0].description',
    ],
    [
      'a time span beyond TimeSpan.MaxValue',
      [{ name: 'C', entries: [entry('A', { valueType: ValueType.TIME_SPAN, value: '10675199.02:48:05.4775808' })] }],
      'entries[0].value',
    ],
  ])('refuses %s with INVALID_ARGUMENT naming the field, and stores nothing', async (_what, classes, field) => {
    const result = await refused(classes as CreateInit['classes']);
    expect(result).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect((result as { details: string }).details).toContain(field);
    expect((await admin.get(`/api/configversions/${serviceId}`)).body).toEqual([]);
  });

  it('accepts TimeSpan.MinValue and MaxValue exactly', async () => {
    const classes = [
      {
        name: 'C',
        entries: [
          entry('Max', { valueType: ValueType.TIME_SPAN, value: '10675199.02:48:05.4775807' }),
          entry('Min', { valueType: ValueType.TIME_SPAN, value: '-10675199.02:48:05.4775808' }),
        ],
      },
    ];
    const { versionId } = await client.createVersion({ serviceId, version: 'time-span-range', classes });
    expect(versionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await admin.delete(`/api/configversions/${serviceId}/${versionId}`)).status).toBe(204);
  });

  it('refuses more than 5000 entries, and registers 5000', async () => {
    const many = (n: number) => [
      { name: 'Many', entries: Array.from({ length: n }, (_, i) => entry(`Many:K${i}`, { value: String(i) })) },
    ];
    expect(await refused(many(5001))).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect((await admin.get(`/api/configversions/${serviceId}`)).body).toEqual([]);

    const { versionId } = await client.createVersion({ serviceId, version: 'five-thousand', classes: many(5000) });
    const snapshot = await client.getConfig({ serviceId, version: 'five-thousand' });
    expect(snapshot.entries).toHaveLength(5000);
    expect(snapshot.entries.find((e) => e.key === 'Many:K4999')?.value).toBe('4999');
    const listed = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as unknown[];
    expect(listed).toHaveLength(5000);
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Entry', pageSize: 1 });
    expect(audit.body.entities[0]).toMatchObject({ action: 'Created', userId: 'client-sdk' });
  });

  it('stores empty allowed values of a non-Enum key as null', async () => {
    const { versionId } = await client.createVersion({
      serviceId,
      version: 'empty-enum-values',
      classes: [{ name: 'C', entries: [entry('Plain', { enumValues: '', value: 'text' })] }],
    });
    const [stored] = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<
      Record<string, unknown>
    >;
    expect(stored).toMatchObject({ key: 'Plain', enumDefinition: null, rawValue: 'text' });
  });
});

describe('malformed native gRPC requests', () => {
  let server: TestServer;
  let client: GrpcTestClient;

  beforeAll(async () => {
    server = await startTestServer();
    client = new GrpcTestClient(`127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('answers INVALID_ARGUMENT, not INTERNAL, for a string that is not UTF-8', async () => {
    // GetConfigRequest { service_id (field 1) = 0xFF 0xFE }: a length-delimited field with invalid UTF-8.
    const message = Uint8Array.from([0x0a, 0x02, 0xff, 0xfe, 0x12, 0x01, 0x31]);
    for (const method of ['GetConfig', 'IsVersionExists', 'CreateVersion', 'StartSubscribe']) {
      const answer = await rawGrpcCall(server.baseUrl, `${SERVICE_PATH}/${method}`, frameOf(message));
      expect({ method, status: answer.grpcStatus }).toEqual({ method, status: INVALID_ARGUMENT });
    }
  });

  it('encodes grpc-message as the gRPC spec says: only bytes outside 0x20-0x7E and "%"', async () => {
    const request = toBinary(
      GetConfigRequestSchema,
      create(GetConfigRequestSchema, { serviceId: 'nö: 100%; sure', version: '1' }),
    );
    const answer = await rawGrpcCall(server.baseUrl, `${SERVICE_PATH}/IsVersionExists`, frameOf(request));
    expect(answer.grpcStatus).toBe(INVALID_ARGUMENT);
    expect(answer.rawMessage).toBe('service_id must be a UUID (got "n%C3%B6: 100%25; sure").');
    // And a real client shows the plain text.
    const error = await client
      .isVersionExists({ serviceId: 'nö: 100%; sure', version: '1' })
      .catch((e: grpc.ServiceError) => e);
    expect((error as grpc.ServiceError).details).toBe('service_id must be a UUID (got "nö: 100%; sure").');
  });

  it('counts calls of unknown methods under one label, however many names are tried', async () => {
    for (let i = 0; i < 50; i++) {
      await rawGrpcCall(server.baseUrl, `${SERVICE_PATH}/Made_Up_${i}`, frameOf(new Uint8Array()));
      await fetch(`${server.baseUrl}/any.pkg.RealtimeConfigGrpcService/Other_${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    }
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/Made_Up_|Other_/);
    const series = metrics.split('\n').filter((line) => line.startsWith('grpc_calls_total{'));
    expect(series.some((line) => line.includes('method="unknown"'))).toBe(true);
    expect(series.length).toBeLessThanOrEqual(10);
  });
});
