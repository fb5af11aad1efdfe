import * as grpc from '@grpc/grpc-js';
import { microsFromTimestamp, timestampFromMicros, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(databaseKinds)('gRPC API over h2c with grpc-js on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'grpc-suite' })).body.id;
  });
  afterAll(async () => {
    grpcClient.close();
    await server.close();
  });

  const register = (
    version: string,
    entries: Array<{ key: string; valueType?: ValueType; value?: string; enumValues?: string }>,
    sid = serviceId,
  ) =>
    grpcClient.createVersion({
      serviceId: sid,
      version,
      classes: [
        {
          name: 'AppOptions',
          description: 'options of the app',
          entries: entries.map((e) => ({
            key: e.key,
            name: e.key,
            valueType: e.valueType ?? ValueType.STRING,
            value: e.value,
            enumValues: e.enumValues,
          })),
        },
      ],
    });

  it('registers a version, reports it exists, and serves its snapshot', async () => {
    expect((await grpcClient.isVersionExists({ serviceId, version: '1.0.0' })).versionId).toBeUndefined();
    const { versionId } = await register('1.0.0', [
      { key: 'Db:Timeout', valueType: ValueType.NUMBER, value: '30' },
      { key: 'Feature:Name', value: '' },
      { key: 'Feature:Nothing' },
      { key: 'Mode', valueType: ValueType.ENUM, value: 'fast', enumValues: 'fast|slow' },
    ]);
    expect(versionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await grpcClient.isVersionExists({ serviceId, version: '1.0.0' })).versionId).toBe(versionId);

    const config = await grpcClient.getConfig({ serviceId, version: '1.0.0' });
    expect(config.entries.map((e) => [e.key, e.value, e.generation, e.type])).toEqual([
      ['Db:Timeout', '30', 1, ValueType.NUMBER],
      ['Feature:Name', '', 1, ValueType.STRING],
      ['Feature:Nothing', undefined, 1, ValueType.STRING],
      ['Mode', 'fast', 1, ValueType.ENUM],
    ]);
    for (const e of config.entries) expect(microsFromTimestamp(e.timestamp!)).toBeGreaterThan(0);

    const rest = await admin.get(`/api/configentries/${serviceId}/${versionId}`);
    expect(rest.body.find((e: { key: string }) => e.key === 'Mode')).toMatchObject({
      groupName: 'AppOptions',
      groupDescription: 'options of the app',
      enumDefinition: 'fast|slow',
    });
    const version = await admin.get(`/api/configversions/${serviceId}/${versionId}`);
    expect(version.body.description).toMatch(/^Registered by client SDK at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });

  it('keeps existing keys and adds missing ones when the label exists', async () => {
    const { versionId } = await register('2.0.0', [{ key: 'A', value: 'a' }]);
    const entries = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body;
    await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: entries[0].id, rawValue: 'changed', generation: 1 },
    ]);
    const again = await register('2.0.0', [
      { key: 'A', value: 'default' },
      { key: 'B', value: 'b' },
    ]);
    expect(again.versionId).toBe(versionId);
    await server.flushChanges();
    const config = await grpcClient.getConfig({ serviceId, version: '2.0.0' });
    expect(config.entries.map((e) => [e.key, e.value, e.generation])).toEqual([
      ['A', 'changed', 2],
      ['B', 'b', 1],
    ]);
  });

  it('carries values over from the newest earlier version when key and type match', async () => {
    const sid = (await admin.post('/api/services', { name: 'carry-over' })).body.id;
    const v1 = (
      await register(
        '1',
        [
          { key: 'Same', value: 'd' },
          { key: 'Retyped', value: 'x' },
        ],
        sid,
      )
    ).versionId;
    const entries = (await admin.get(`/api/configentries/${sid}/${v1}`)).body as Array<{ id: string; key: string }>;
    await admin.put(
      `/api/configentries/${sid}/${v1}/set`,
      entries.map((e) => ({ id: e.id, rawValue: e.key === 'Same' ? 'operator value' : 'operator x', generation: 1 })),
    );
    await register(
      '2',
      [
        { key: 'Same', value: 'new default' },
        { key: 'Retyped', valueType: ValueType.NUMBER, value: '5' },
        { key: 'Fresh', value: 'f' },
      ],
      sid,
    );
    const config = await grpcClient.getConfig({ serviceId: sid, version: '2' });
    expect(config.entries.map((e) => [e.key, e.value])).toEqual([
      ['Fresh', 'f'],
      ['Retyped', '5'],
      ['Same', 'operator value'],
    ]);
  });

  it('creates one version when many clients register the same label at once', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => register('race', [{ key: `K${i % 3}` }])));
    expect(new Set(results.map((r) => r.versionId)).size).toBe(1);
    const versions = (await admin.get(`/api/configversions/${serviceId}`)).body.filter(
      (v: { versionLabel: string }) => v.versionLabel === 'race',
    );
    expect(versions).toHaveLength(1);
    const config = await grpcClient.getConfig({ serviceId, version: 'race' });
    expect(config.entries.map((e) => e.key)).toEqual(['K0', 'K1', 'K2']);
  });

  it('answers the documented statuses for bad input', async () => {
    await expect(grpcClient.getConfig({ serviceId: 'nope', version: '1' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    await expect(grpcClient.isVersionExists({ serviceId: 'nope', version: '1' })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    await expect(register('x', [], 'nope')).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(register('x', [], MISSING)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(register('', [{ key: 'A' }])).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(register('bad', [{ key: 'A::B' }])).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(register('bad', [{ key: 'A' }, { key: 'A' }])).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    await expect(register('bad', [{ key: 'N', valueType: ValueType.NUMBER, value: 'abc' }])).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    expect((await grpcClient.isVersionExists({ serviceId, version: 'bad' })).versionId).toBeUndefined();
    expect((await grpcClient.getConfig({ serviceId: MISSING, version: '1.0.0' })).entries).toEqual([]);
    expect((await grpcClient.getConfig({ serviceId, version: 'no-such-label' })).entries).toEqual([]);
    expect((await grpcClient.isVersionExists({ serviceId: MISSING, version: '1.0.0' })).versionId).toBeUndefined();
  });

  it('answers under any package prefix or none', async () => {
    for (const pkg of ['', 'other.pkg', 'Konfigo.Client']) {
      const client = new GrpcTestClient(`127.0.0.1:${server.port}`, undefined, {}, pkg);
      try {
        const config = await client.getConfig({ serviceId, version: '1.0.0' });
        expect(config.entries.length).toBe(4);
        const versionId = (await client.isVersionExists({ serviceId, version: '1.0.0' })).versionId!;
        const sub = client.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
        await sub.until((s) => s.events.length >= 1);
        expect(sub.configEvents.length).toBe(4);
        sub.cancel();
      } finally {
        client.close();
      }
    }
  });

  describe('StartSubscribe', () => {
    let versionId: string;
    let entryIds: Record<string, string>;

    beforeAll(async () => {
      versionId = (await register('stream', [{ key: 'A', value: '1' }, { key: 'B', value: '' }, { key: 'C' }]))
        .versionId;
      const entries = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
        id: string;
        key: string;
      }>;
      entryIds = Object.fromEntries(entries.map((e) => [e.key, e.id]));
    });

    it('sends the backfill as one event, then live changes in order', async () => {
      const sub = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      await sub.until((s) => s.events.length >= 1);
      expect(sub.events[0]!.events.map((e) => [e.key, e.value, e.generation])).toEqual([
        ['A', '1', 1],
        ['B', '', 1],
        ['C', undefined, 1],
      ]);
      const lastBackfill = microsFromTimestamp(sub.events[0]!.events.at(-1)!.timestamp!);

      let generation = 1;
      for (const value of ['2', '3', '4']) {
        const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: entryIds.A, rawValue: value, generation },
        ]);
        generation = res.body[0].generation;
      }
      await sub.until((s) => s.configEvents.length >= 6);
      const live = sub.configEvents.slice(3);
      expect(live.map((e) => [e.key, e.value, e.generation])).toEqual([
        ['A', '2', 2],
        ['A', '3', 3],
        ['A', '4', 4],
      ]);
      const stamps = live.map((e) => microsFromTimestamp(e.timestamp!));
      expect(stamps[0]).toBeGreaterThan(lastBackfill);
      expect(stamps[1]).toBeGreaterThan(stamps[0]!);
      expect(stamps[2]).toBeGreaterThan(stamps[1]!);
      sub.cancel();
    });

    it('resumes after a timestamp: only later changes, deletions included with a null value', async () => {
      const first = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      await first.until((s) => s.events.length >= 1);
      const resumeAt = Math.max(...first.configEvents.map((e) => microsFromTimestamp(e.timestamp!)));
      first.cancel();

      const b = await admin.get(`/api/configentries/${serviceId}/${versionId}`);
      const gen = (key: string) => b.body.find((e: { key: string }) => e.key === key).generation;
      await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: entryIds.B, rawValue: null, generation: gen('B') },
      ]);
      expect((await admin.delete(`/api/configentries/${serviceId}/${versionId}/${entryIds.C}`)).status).toBe(204);

      const resumed = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(resumeAt) });
      await resumed.until((s) => s.events.length >= 1);
      expect(resumed.events[0]!.events.map((e) => [e.key, e.value, e.generation])).toEqual([
        ['B', undefined, 2],
        ['C', undefined, 2],
      ]);
      await server.flushChanges();
      const config = await grpcClient.getConfig({ serviceId, version: 'stream' });
      expect(config.entries.map((e) => e.key)).toEqual(['A', 'B']);
      resumed.cancel();
    });

    it('sends no backfill when nothing changed after the timestamp, then live changes', async () => {
      const first = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
      await first.until((s) => s.events.length >= 1);
      const latest = Math.max(...first.configEvents.map((e) => microsFromTimestamp(e.timestamp!)));
      first.cancel();

      const sub = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(latest) });
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Later',
        valueType: 1,
        rawValue: 'x',
      });
      expect(created.status).toBe(201);
      await sub.until((s) => s.configEvents.some((e) => e.key === 'Later'));
      expect(sub.configEvents.map((e) => e.key)).toEqual(['Later']);
      sub.cancel();
    });

    it('ends with NOT_FOUND for an unknown version and INVALID_ARGUMENT for malformed ids', async () => {
      const unknown = grpcClient.subscribe({ serviceId, versionId: MISSING });
      await unknown.until((s) => s.status !== undefined);
      expect(unknown.status?.code).toBe(grpc.status.NOT_FOUND);
      const otherService = (await admin.post('/api/services', { name: 'other' })).body.id;
      const mismatched = grpcClient.subscribe({ serviceId: otherService, versionId });
      await mismatched.until((s) => s.status !== undefined);
      expect(mismatched.status?.code).toBe(grpc.status.NOT_FOUND);
      const malformed = grpcClient.subscribe({ serviceId: 'x', versionId });
      await malformed.until((s) => s.status !== undefined);
      expect(malformed.status?.code).toBe(grpc.status.INVALID_ARGUMENT);
    });

    it('deletes every key and ends with NOT_FOUND when the version is deleted', async () => {
      const { versionId: doomed } = await register('doomed', [
        { key: 'X', value: '1' },
        { key: 'Y', value: '2' },
      ]);
      const sub = grpcClient.subscribe({ serviceId, versionId: doomed, timestamp: timestampFromMicros(0) });
      await sub.until((s) => s.events.length >= 1);
      expect((await admin.delete(`/api/configversions/${serviceId}/${doomed}`)).status).toBe(204);
      await sub.until((s) => s.status !== undefined);
      expect(sub.configEvents.slice(2).map((e) => [e.key, e.value, e.generation])).toEqual([
        ['X', undefined, 2],
        ['Y', undefined, 2],
      ]);
      expect(sub.status?.code).toBe(grpc.status.NOT_FOUND);
      expect((await grpcClient.getConfig({ serviceId, version: 'doomed' })).entries).toEqual([]);
    });

    it('ends every stream of a deleted service the same way', async () => {
      const sid = (await admin.post('/api/services', { name: 'doomed-service' })).body.id;
      const v1 = (await register('1', [{ key: 'P' }], sid)).versionId;
      const v2 = (await register('2', [{ key: 'Q' }], sid)).versionId;
      const subs = [v1, v2].map((v) =>
        grpcClient.subscribe({ serviceId: sid, versionId: v, timestamp: timestampFromMicros(0) }),
      );
      for (const s of subs) await s.until((x) => x.events.length >= 1);
      expect((await admin.delete(`/api/services/${sid}`)).status).toBe(204);
      for (const s of subs) {
        await s.until((x) => x.status !== undefined);
        expect(s.status?.code).toBe(grpc.status.NOT_FOUND);
        expect(s.configEvents.at(-1)?.value).toBeUndefined();
      }
    });

    it('a key created again after deletion continues after the deletion generation', async () => {
      const sub = grpcClient.subscribe({ serviceId, versionId });
      await sub.until((s) => s.events.length >= 1);
      // The backfill reports the deletion (a tombstone, value null) with its generation.
      const deletion = sub.configEvents.find((e) => e.key === 'C');
      expect(deletion?.value).toBeUndefined();
      const deleted = deletion?.generation as number;
      expect(deleted).toBeGreaterThan(1);
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'C',
        valueType: 1,
        rawValue: 'again',
      });
      expect(created.body.generation).toBe(deleted + 1);
      await sub.until((s) => s.configEvents.some((e) => e.key === 'C' && e.value === 'again'));
      expect(sub.configEvents.filter((e) => e.key === 'C').at(-1)?.generation).toBe(deleted + 1);
      sub.cancel();
    });
  });
});
