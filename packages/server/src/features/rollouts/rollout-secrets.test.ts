import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { alteredSealed, newMasterKeyFile } from '@realtime-config/test-support/master-key';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { receivedOf } from '@realtime-config/test-support/rollout-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A rollout of a secret (docs/rollouts.md, docs/secrets.md): its new value is sealed in every stored
 * copy (the entry's slot, the rollout, the change log, the audit log), redacted in every answer and
 * webhook-facing view, and streamed only to callers that receive secrets.
 */
describe.each(databaseKinds)('a rollout of a secret (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    server = await startTestServer({ kind, args: [`--Secrets:MasterKeyFile=${newMasterKeyFile()}`] });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'secret-rollouts' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [{ key: 'Plain', value: 'p' }]);
  });
  afterAll(async () => {
    grpcClient?.close();
    await server?.close();
  });

  const rollouts = () => `/api/configversions/${serviceId}/${versionId}/rollouts`;
  /** A secret STRING entry of the version: its id and generation. */
  const secretEntry = async (key: string, rawValue: string) => {
    const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
      key,
      valueType: ValueType.STRING,
      rawValue,
      isSecret: true,
    });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; generation: number };
  };
  /** A rollout of `rawValue` to the entry, at 100 % at once, baking an hour: the created answer. */
  const rollOut = async (entry: { id: string; generation: number }, rawValue: string) => {
    const created = await admin.post(rollouts(), {
      changes: [{ id: entry.id, rawValue, generation: entry.generation }],
      steps: [100],
      stepSeconds: 60,
      bakeSeconds: 3600,
    });
    expect(created.status, created.text).toBe(201);
    return created;
  };

  it('keeps the new value sealed at rest, redacted in answers, and off streams without secrets', async () => {
    const marker = `rolled-secret-${randomUUID()}`;
    const secret = await secretEntry('Api:Key', 'old-secret');
    const key = (
      await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'secrets', scopes: ['read', 'secrets'] })
    ).body.key as string;
    const withSecrets = new grpc.Metadata();
    withSecrets.set('authorization', `Bearer ${key}`);
    const secretStream = grpcClient.subscribe({ serviceId, versionId }, withSecrets);
    const publicStream = grpcClient.subscribe({ serviceId, versionId });
    try {
      await secretStream.until((s) => receivedOf(s, 'Api:Key').length === 1);
      await publicStream.until((s) => receivedOf(s, 'Plain').length === 1);
      const created = await rollOut(secret, marker);
      expect(created.text).not.toContain(marker);
      expect(created.body.changes).toEqual([
        { id: secret.id, key: 'Api:Key', rawValue: null, generation: secret.generation, isSecret: true },
      ]);
      // A client without an instance id is in at 100 %: the stream with secrets gets the new value.
      await secretStream.until((s) => receivedOf(s, 'Api:Key').at(-1)?.[0] === marker);
      const list = await admin.get(rollouts());
      expect(list.text).not.toContain(marker);
      const resolved = await admin.get(`/api/configversions/${serviceId}/${versionId}/resolve`);
      expect(resolved.text).not.toContain(marker);
      expect(resolved.body.entries.find((e: { key: string }) => e.key === 'Api:Key')).toMatchObject({
        source: 'rollout',
        rawValue: null,
        redacted: true,
      });

      const db = server.internals.database.db;
      const rows = [
        ...(await db.selectFrom('entries').select('rollout as text').where('id', '=', secret.id).execute()),
        ...(await db.selectFrom('rollouts').select('changes as text').where('id', '=', created.body.id).execute()),
        ...(await db.selectFrom('audit_logs').select('changes as text').where('service_id', '=', serviceId).execute()),
      ];
      expect(rows.length).toBeGreaterThanOrEqual(3);
      for (const row of rows) expect(row.text ?? '').not.toContain(marker);
      expect(rows[0]!.text).toContain('sealedValue');

      const promoted = await admin.post(
        `/api/configversions/${serviceId}/${versionId}/rollouts/${created.body.id}/promote`,
      );
      expect(promoted.status, promoted.text).toBe(200);
      const revealed = await admin.post(`/api/configentries/${serviceId}/${versionId}/${secret.id}/reveal`);
      expect(revealed.body.rawValue).toBe(marker);
      // The public stream never heard of the secret, before or after.
      expect(receivedOf(publicStream, 'Api:Key')).toEqual([]);
      expect(JSON.stringify(publicStream.configEvents.map((e) => e.value))).not.toContain(marker);
    } finally {
      secretStream.cancel();
      publicStream.cancel();
    }
  });
  it('never completes a new value it cannot decrypt: promote answers 409, the scheduler rolls back, the entry keeps its value', async () => {
    const secret = await secretEntry('Altered:Key', 'kept-secret');
    const created = await rollOut(secret, 'new-secret');
    const id = created.body.id as string;

    // The sealed new value altered at rest, in the entry's slot and in the rollout: it no longer opens.
    const db = server.internals.database.db;
    const alter = (text: string) =>
      text.replace(/"sealedValue":"([^"]+)"/g, (_all, sealed: string) => `"sealedValue":"${alteredSealed(sealed)}"`);
    const slot = await db.selectFrom('entries').select('rollout').where('id', '=', secret.id).executeTakeFirst();
    const stored = await db.selectFrom('rollouts').select('changes').where('id', '=', id).executeTakeFirst();
    expect(slot?.rollout).toContain('sealedValue');
    await db
      .updateTable('entries')
      .set({ rollout: alter(slot?.rollout ?? '') })
      .where('id', '=', secret.id)
      .execute();
    await db
      .updateTable('rollouts')
      .set({ changes: alter(stored?.changes ?? '') })
      .where('id', '=', id)
      .execute();

    const promoted = await admin.post(`${rollouts()}/${id}/promote`);
    expect(promoted.status, promoted.text).toBe(409);
    expect(promoted.body.detail).toContain('Altered:Key cannot be decrypted');
    expect((await admin.get(`${rollouts()}/${id}`)).body.status).toBe('baking');

    // Due now: the scheduler rolls it back, saying why.
    await db.updateTable('rollouts').set({ next_at: 0 }).where('id', '=', id).execute();
    for (let waited = 0; (await admin.get(`${rollouts()}/${id}`)).body.status !== 'rolled_back'; waited += 50) {
      if (waited > 10_000) throw new Error('the rollout was not rolled back');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await admin.get(`${rollouts()}/${id}`)).body.reason).toContain('Altered:Key cannot be decrypted');
    // The entry kept its own value, two generations on.
    const base = `/api/configentries/${serviceId}/${versionId}`;
    expect((await admin.post(`${base}/${secret.id}/reveal`)).body.rawValue).toBe('kept-secret');
    const entry = (await admin.get(base)).body.find((e: { id: string }) => e.id === secret.id);
    expect(entry.generation).toBe(secret.generation + 2);
    expect(entry.unreadable ?? false).toBe(false);
  });

  it('rolls back an entry whose own value it cannot decrypt without writing over that value', async () => {
    const secret = await secretEntry('Altered:Own', 'own-secret');
    const created = await rollOut(secret, 'next-secret');
    const db = server.internals.database.db;
    const row = await db.selectFrom('entries').select('raw_value').where('id', '=', secret.id).executeTakeFirst();
    const altered = alteredSealed(row?.raw_value ?? '');
    await db.updateTable('entries').set({ raw_value: altered }).where('id', '=', secret.id).execute();

    const rolledBack = await admin.post(`${rollouts()}/${created.body.id}/rollback`);
    expect(rolledBack.status, rolledBack.text).toBe(200);
    // Still the same sealed text (should the right key come back, it opens), not "no value".
    const after = await db
      .selectFrom('entries')
      .select(['raw_value', 'rollout', 'generation'])
      .where('id', '=', secret.id)
      .executeTakeFirst();
    expect(after).toMatchObject({ raw_value: altered, rollout: null, generation: secret.generation + 2 });
    const entry = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body.find(
      (e: { id: string }) => e.id === secret.id,
    );
    expect(entry).toMatchObject({ unreadable: true, generation: secret.generation + 2 });
  });
});
