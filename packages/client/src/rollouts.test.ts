import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInRollout } from '@realtime-config/test-support/rollout-fixtures';
import { connect, defineConfig, group, number, type LiveConfig } from './index.js';
import { entriesByKey, recordingLogger, startFixture, until, type Fixture } from './test-support/fixtures.js';

/**
 * The SDK in a rollout (docs/rollouts.md): an instance is in or out by its instanceId alone, so a
 * restart with the same id loads the same value, and completion reaches the instances that were out
 * while those in hear nothing new.
 */
describe('the SDK in a rollout', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture('sqlite');
  });
  afterAll(async () => {
    await fx?.close();
  });

  const schema = defineConfig({ Http: group({ TimeoutSeconds: number({ default: 30 }) }) });

  it('gives an instance the value its id puts it in for, across a restart, until the rollout completes', async () => {
    const serviceId = await fx.service();
    const open = (instanceId: string) =>
      connect({ url: fx.url, serviceId, version: '1.0.0', schema, instanceId, logger: recordingLogger() });
    const first = await open('setup');
    const versionId = first.versionId;
    await first.close();
    const entry = (await entriesByKey(fx.admin, serviceId, versionId))['Http:TimeoutSeconds']!;
    const created = await fx.admin.post(`/api/configversions/${serviceId}/${versionId}/rollouts`, {
      changes: [{ id: entry.id, rawValue: '45', generation: entry.generation }],
      steps: [50, 100],
      stepSeconds: 3600,
      bakeSeconds: 0,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const candidates = Array.from({ length: 40 }, (_, i) => `pod-${i}`);
    const inside = candidates.find((c) => isInRollout(id, c, 50)) as string;
    const outside = candidates.find((c) => !isInRollout(id, c, 50)) as string;

    let a: LiveConfig<typeof schema> = await open(inside);
    const b = await open(outside);
    try {
      expect(a.values.Http.TimeoutSeconds).toBe(45);
      expect(b.values.Http.TimeoutSeconds).toBe(30);
      // A restart with the same id loads the same value: the first GetConfig already resolves it.
      await a.close();
      a = await open(inside);
      expect(a.values.Http.TimeoutSeconds).toBe(45);
      const heardByA: number[] = [];
      a.subscribe((values) => heardByA.push(values.Http.TimeoutSeconds));

      const promoted = await fx.admin.post(`/api/configversions/${serviceId}/${versionId}/rollouts/${id}/promote`);
      expect(promoted.status, promoted.text).toBe(200);
      await until(() => b.values.Http.TimeoutSeconds === 45, 'the instance that was out gets the value');
      // A later change both hear: by then anything of the completion would have reached a too.
      const after = (await entriesByKey(fx.admin, serviceId, versionId))['Http:TimeoutSeconds']!;
      await fx.admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
        { id: after.id, rawValue: '50', generation: after.generation },
      ]);
      await until(() => a.values.Http.TimeoutSeconds === 50 && b.values.Http.TimeoutSeconds === 50, 'the next value');
      expect(heardByA).toEqual([50]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
