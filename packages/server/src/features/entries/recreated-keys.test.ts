import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { eventRows, registerVersion, type EventRow } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A key deleted and created again continues after its deletion's generation, whichever way it is
 * created again (REST, an import, a restore, CreateVersion) and however often: a client that keeps
 * the deletion's generation (Konfigo's Go SDK drops every change not above the generation it holds)
 * must take the new entry and its next change.
 */
describe.each(databaseKinds)('a key created again after its deletion on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpc: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `recreated-${kind}` })).body.id;
  });
  afterAll(async () => {
    grpc.close();
    await server.close();
  });

  const entries = async (versionId: string) =>
    (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
      id: string;
      key: string;
      rawValue: string | null;
      generation: number;
    }>;
  const entryOf = async (versionId: string, key: string) => (await entries(versionId)).find((e) => e.key === key);
  const remove = async (versionId: string, key: string) => {
    const entry = await entryOf(versionId, key);
    expect((await admin.delete(`/api/configentries/${serviceId}/${versionId}/${entry!.id}`)).status).toBe(204);
  };
  const create = async (versionId: string, key: string, rawValue: string) => {
    const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key,
      name: key,
      valueType: 1,
      rawValue,
    });
    expect(res.status).toBe(201);
    return res.body as { generation: number };
  };
  const snapshot = async (label: string) =>
    (await grpc.getConfig({ serviceId, version: label })).entries.map((e) => ({
      key: e.key,
      generation: e.generation,
    }));

  it('never goes back in generation on REST, GetConfig and the stream, through every way of creating it', async () => {
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    const stream = grpc.subscribe({ serviceId, versionId });
    try {
      // REST: created (1), set (2), deleted (3), created again (4).
      await create(versionId, 'Mode', 'one');
      const first = await entryOf(versionId, 'Mode');
      const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: first!.id, rawValue: 'two', generation: 1 },
      ]);
      expect(set.body[0].generation).toBe(2);
      await remove(versionId, 'Mode');
      expect((await create(versionId, 'Mode', 'recreated-1')).generation).toBe(4);
      expect(await snapshot('1.0.0')).toEqual([{ key: 'Mode', generation: 4 }]);

      // Its tombstone is gone now (replaced by the new entry); deleted again (5) and created again by
      // an import that creates missing keys (6).
      await remove(versionId, 'Mode');
      const url = `/api/configversions/${serviceId}/${versionId}/import?format=env&createMissing=true`;
      const dry = await admin.post(`${url}&dryRun=true`, 'Mode=recreated-2\n', { contentType: 'text/plain' });
      expect(dry.status).toBe(200);
      const applied = await admin.post(
        `${url}&dryRun=false&basedOn=${encodeURIComponent(dry.body.basedOn)}`,
        'Mode=recreated-2\n',
        { contentType: 'text/plain' },
      );
      expect(applied.status).toBe(200);
      expect(await entryOf(versionId, 'Mode')).toMatchObject({ rawValue: 'recreated-2', generation: 6 });

      // Deleted (7), then a registration of the same label adds the key again (8).
      await remove(versionId, 'Mode');
      await registerVersion(grpc, serviceId, '1.0.0', [{ key: 'Mode', value: 'registered' }]);
      expect(await entryOf(versionId, 'Mode')).toMatchObject({ rawValue: 'registered', generation: 8 });
      expect(await snapshot('1.0.0')).toEqual([{ key: 'Mode', generation: 8 }]);

      // The stream saw every step, each generation above the one before, deletions included.
      await server.flushChanges();
      await stream.until((s) =>
        eventRows(s.events)
          .flat()
          .some((row) => row.generation === 8),
      );
      const rows: EventRow[] = eventRows(stream.events)
        .flat()
        .filter((row) => row.key === 'Mode');
      expect(rows.map((row) => [row.generation, row.value])).toEqual([
        [1, 'one'],
        [2, 'two'],
        [3, null],
        [4, 'recreated-1'],
        [5, null],
        [6, 'recreated-2'],
        [7, null],
        [8, 'registered'],
      ]);
    } finally {
      stream.cancel();
    }
  });

  it('continues after the deletion when a restore brings the key back', async () => {
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0.0' })).body.id;
    await create(versionId, 'Limit', 'ten');
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await remove(versionId, 'Limit');
    const restore = (body: object) => admin.post(`/api/configentries/${serviceId}/${versionId}/restore`, body);
    const dry = await restore({ at: before, dryRun: true });
    expect(dry.status).toBe(200);
    expect((await restore({ at: before, dryRun: false, basedOn: dry.body.basedOn })).status).toBe(200);
    expect(await entryOf(versionId, 'Limit')).toMatchObject({ rawValue: 'ten', generation: 3 });
    expect(await snapshot('2.0.0')).toEqual([{ key: 'Limit', generation: 3 }]);
  });
});
