import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeNotice } from '../../core/index.js';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

describe.each(databaseKinds)('version caps in CreateVersion on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let client: GrpcTestClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Versions:MaxEntries=3', '--Versions:MaxBytes=1024'] });
    admin = await server.admin();
    client = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: `registration caps ${kind}` })).body.id;
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  const register = (version: string, entries: Array<{ key: string; value?: string }>) =>
    client.createVersion({
      serviceId,
      version,
      classes: [
        {
          name: 'O',
          entries: entries.map((e) => ({ key: e.key, name: e.key, valueType: ValueType.STRING, value: e.value })),
        },
      ],
    });
  const keys = (...names: string[]) => names.map((key) => ({ key, value: 'x' }));
  const versions = async () =>
    ((await admin.get(`/api/configversions/${serviceId}`)).body as Array<{ id: string; versionLabel: string }>).map(
      (v) => [v.versionLabel, v.id],
    );
  const state = async () => {
    const all = await versions();
    return {
      versions: all,
      entries: await Promise.all(
        all.map(async ([, id]) => (await admin.get(`/api/configentries/${serviceId}/${id}`)).body),
      ),
      newestAudit: (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 1 })).body.entities[0]?.id,
    };
  };

  /** CreateVersion answers RESOURCE_EXHAUSTED with `detail`, and stores, audits and announces nothing. */
  const refusedWithoutTrace = async (detail: string, call: () => Promise<unknown>) => {
    await server.flushChanges();
    const before = await state();
    const notices: ChangeNotice[] = [];
    const stop = server.internals.hub.subscribeAll((notice) => notices.push(notice));
    try {
      const error = (await call().then(
        () => null,
        (e: unknown) => e,
      )) as grpc.ServiceError | null;
      expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(error?.details).toBe(detail);
      await server.flushChanges();
    } finally {
      stop();
    }
    expect(notices.filter((n) => n.serviceId === serviceId)).toEqual([]);
    expect(await state()).toEqual(before);
  };

  it('registers a new version at the entry cap and refuses one a key larger, creating no version', async () => {
    await refusedWithoutTrace('Version 1.0 would hold 4 entries; the limit is 3 (Versions:MaxEntries).', () =>
      register('1.0', keys('A', 'B', 'C', 'D')),
    );
    expect((await client.isVersionExists({ serviceId, version: '1.0' })).versionId).toBeUndefined();
    const { versionId } = await register('1.0', keys('A', 'B', 'C'));
    expect((await client.getConfig({ serviceId, version: '1.0' })).entries.map((e) => e.key)).toEqual(['A', 'B', 'C']);
    expect((await register('1.0', keys('A', 'B', 'C'))).versionId).toBe(versionId);
  });

  it('refuses to add missing keys to a full version, and default values past the byte cap', async () => {
    await register('2.0', keys('A', 'B'));
    await refusedWithoutTrace('Version 2.0 would hold 4 entries; the limit is 3 (Versions:MaxEntries).', () =>
      register('2.0', keys('A', 'B', 'C', 'D')),
    );
    // A and B hold 4 bytes each (key, value, name, group "O"); C with 1,013 bytes of value fills 1,024.
    await refusedWithoutTrace('Version 2.0 would grow past its limit of 1,024 bytes (Versions:MaxBytes).', () =>
      register('2.0', [{ key: 'C', value: 'c'.repeat(1014) }]),
    );
    await register('2.0', [{ key: 'C', value: 'c'.repeat(1013) }]);
    expect((await client.getConfig({ serviceId, version: '2.0' })).entries.map((e) => e.key)).toEqual(['A', 'B', 'C']);
  });
});
