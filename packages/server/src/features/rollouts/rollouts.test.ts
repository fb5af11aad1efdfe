import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import {
  entriesByKey,
  registerVersion,
  setValue,
  type RestEntry,
} from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import {
  instanceStream,
  isInRollout as isIn,
  movableClock,
  receivedOf,
  untilRollout,
} from '@realtime-config/test-support/rollout-fixtures';

/**
 * Rollouts over raw gRPC streams (docs/rollouts.md): who is in at each step, by the hash rule
 * computed here independently; completion without a second event; rollback with generation + 2 to
 * exactly the instances that had the new value. Time is the server's injected clock, moved by the
 * test: a step's time comes when the test says so, whatever the machine's load.
 */

const INSTANCES = Array.from({ length: 40 }, (_, i) => `pod-${i}`);

describe.each(databaseKinds)('rollouts over 40 raw streams (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  const clock = movableClock();
  const streams = new Map<string, Subscription>();

  beforeAll(async () => {
    server = await startTestServer({ kind, args: ['--Rollouts:TickMilliseconds=20'], deps: { clock } });
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'rollouts' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [
      { key: 'Timeout', valueType: ValueType.NUMBER, value: '30' },
      { key: 'Mode', value: 'old' },
      { key: 'Beat', value: '0' },
    ]);
    for (const id of INSTANCES) streams.set(id, instanceStream(grpcClient, { serviceId, versionId }, id));
    await Promise.all([...streams.values()].map((s) => s.until(() => s.configEvents.length >= 3)));
  });
  afterAll(async () => {
    for (const s of streams.values()) s.cancel();
    grpcClient?.close();
    await server?.close();
  });

  const base = () => `/api/configversions/${serviceId}/${versionId}/rollouts`;
  /** What each stream received of a key: [value, generation], in order. */
  const received = (id: string, key: string) => receivedOf(streams.get(id) as Subscription, key);
  let beat: RestEntry;
  /** A change every stream receives: once each has it, nothing sent before it is still on its way. */
  const barrier = async () => {
    beat ??= (await entriesByKey(admin, serviceId, versionId)).Beat as RestEntry;
    await setValue(admin, serviceId, versionId, beat, String(Number(beat.rawValue ?? 0) + 1));
    const generation = beat.generation;
    await Promise.all(
      [...streams.values()].map((s) =>
        s.until(() => s.configEvents.some((e) => e.key === 'Beat' && Number(e.generation) === generation)),
      ),
    );
  };
  const untilStatus = (id: string, check: (r: { status: string; step: number; reason: string | null }) => boolean) =>
    untilRollout(admin, `${base()}/${id}`, check);

  it('steps [10, 50, 100] to exactly the instances the hash rule names, bakes, then completes without a second event', async () => {
    const entries = await entriesByKey(admin, serviceId, versionId);
    const timeout = entries.Timeout as RestEntry;
    const g = timeout.generation;
    const created = await admin.post(base(), {
      changes: [{ id: timeout.id, rawValue: '45', generation: g }],
      steps: [10, 50, 100],
      stepSeconds: 60,
      bakeSeconds: 300,
      startAt: null,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      status: 'running',
      step: 0,
      steps: [10, 50, 100],
      stepSeconds: 60,
      bakeSeconds: 300,
    });

    // The entry is held: a value set answers 409 naming the rollout.
    const locked = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: timeout.id, rawValue: '99', generation: g },
    ]);
    expect(locked.status).toBe(409);
    expect(locked.body.detail).toContain(id);
    expect(locked.body.rolloutId).toBe(id);

    const expectMembership = async (percent: number) => {
      await barrier();
      for (const instance of INSTANCES) {
        const expected = isIn(id, instance, percent)
          ? [
              ['30', g],
              ['45', g + 1],
            ]
          : [['30', g]];
        expect(received(instance, 'Timeout'), `${instance} at ${percent} %`).toEqual(expected);
      }
      // GetConfig answers each instance the same as its stream.
      const metadata = new grpc.Metadata();
      const probe = INSTANCES.find((i) => isIn(id, i, percent)) as string;
      metadata.set('x-rc-instance-id', probe);
      const answer = await grpcClient.getConfig({ serviceId, version: '1.0.0' }, metadata);
      expect(answer.entries.find((e) => e.key === 'Timeout')).toMatchObject({ value: '45', generation: g + 1 });
    };
    await expectMembership(10);
    // OFREP answers the same: an instance in gets the rollout's value, reason SPLIT; one out, STATIC.
    const readKey = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'ofrep', scopes: ['read'] })).body
      .key as string;
    const ofrep = (instance: string) =>
      server
        .client()
        .post(
          '/ofrep/v1/evaluate/flags/Timeout',
          { context: { targetingKey: instance } },
          { headers: { authorization: `Bearer ${readKey}`, 'x-rc-version': '1.0.0' } },
        );
    const inside = INSTANCES.find((i) => isIn(id, i, 10)) as string;
    const outside = INSTANCES.find((i) => !isIn(id, i, 10)) as string;
    expect((await ofrep(inside)).body).toMatchObject({ value: 45, reason: 'SPLIT', variant: `rollout-${id}` });
    expect((await ofrep(outside)).body).toMatchObject({ value: 30, reason: 'STATIC' });
    const instances = (await admin.get(`/api/configversions/${serviceId}/${versionId}/instances`)).body.instances as {
      instanceId: string;
      rollout: { id: string; in: boolean };
    }[];
    expect(instances).toHaveLength(40);
    for (const i of instances) expect(i.rollout).toEqual({ id, in: isIn(id, i.instanceId, 10) });

    clock.advance(60);
    await untilStatus(id, (r) => r.step === 1);
    // Before any other change: the instances the step leaves out were sent nothing, and are up to date all the same.
    const upToDate = async () =>
      ((await admin.get(`/api/configversions/${serviceId}/${versionId}/instances`)).body as { upToDate: number })
        .upToDate;
    for (let i = 0; i < 800 && (await upToDate()) < 40; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await upToDate()).toBe(40);
    await expectMembership(50);
    clock.advance(60);
    const baking = await untilStatus(id, (r) => r.status === 'baking');
    expect(baking.step).toBe(2);
    await expectMembership(100);

    clock.advance(300);
    const completed = await untilStatus(id, (r) => r.status === 'completed');
    expect(completed.reason).toBeNull();
    const after = (await entriesByKey(admin, serviceId, versionId)).Timeout as RestEntry;
    expect([after.rawValue, after.generation]).toEqual(['45', g + 1]);
    // Every instance already had the new value at g + 1: completion sends nothing again.
    await barrier();
    for (const instance of INSTANCES) {
      expect(received(instance, 'Timeout'), instance).toEqual([
        ['30', g],
        ['45', g + 1],
      ]);
    }
    const audit = (await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Rollout' })).body;
    expect(JSON.stringify(audit)).toContain('RolloutCompleted');
    // The entry's history shows the completion as the change that gave it its new value.
    const history = (await admin.get(`/api/configentries/${serviceId}/${versionId}/${timeout.id}/history`)).body;
    const items = history.entities as { action: string; value: string | null; generation: number }[];
    expect(items[0]).toMatchObject({ action: 'RolloutCompleted', value: '45', generation: g + 1 });
  });

  it('rolls back with generation + 2 to exactly the instances that had the new value', async () => {
    const mode = (await entriesByKey(admin, serviceId, versionId)).Mode as RestEntry;
    const g = mode.generation;
    const created = await admin.post(base(), {
      changes: [{ id: mode.id, rawValue: 'new', generation: g }],
      steps: [25, 100],
      stepSeconds: 60,
      bakeSeconds: 0,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    await barrier();
    const had = INSTANCES.filter((i) => isIn(id, i, 25));
    expect(had.length).toBeGreaterThan(0);
    expect(had.length).toBeLessThan(40);

    const rolledBack = await admin.post(`${base()}/${id}/rollback`);
    expect(rolledBack.status, rolledBack.text).toBe(200);
    expect(rolledBack.body).toMatchObject({ status: 'rolled_back' });
    expect(rolledBack.body.reason).toContain('rolled back by');
    expect((await admin.post(`${base()}/${id}/resume`)).status).toBe(409);
    const after = (await entriesByKey(admin, serviceId, versionId)).Mode as RestEntry;
    expect([after.rawValue, after.generation]).toEqual(['old', g + 2]);
    await barrier();
    for (const instance of INSTANCES) {
      const got = received(instance, 'Mode').slice(-3);
      if (had.includes(instance)) {
        expect(got, instance).toEqual([
          ['old', g],
          ['new', g + 1],
          ['old', g + 2],
        ]);
      } else {
        // The others may receive the new generation with their unchanged value, or nothing.
        expect(
          got.filter(([value]) => value !== 'old'),
          instance,
        ).toEqual([]);
      }
    }
  });

  it('waits for its start time, and a paused rollout takes no step until resumed, timed again from then', async () => {
    const beat0 = (await entriesByKey(admin, serviceId, versionId)).Timeout as RestEntry;
    const startAt = new Date(clock.nowMicros() / 1000 + 120_000).toISOString();
    const created = await admin.post(base(), {
      changes: [{ id: beat0.id, rawValue: '60', generation: beat0.generation }],
      steps: [50, 100],
      stepSeconds: 60,
      bakeSeconds: 0,
      startAt,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ status: 'scheduled', percent: 0, stepStartedAt: null });
    // Scheduled already holds the entry.
    const held = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: beat0.id, rawValue: '1', generation: beat0.generation },
    ]);
    expect(held.status).toBe(409);
    await barrier();
    for (const instance of INSTANCES) expect(received(instance, 'Timeout').at(-1)).toEqual(['45', beat0.generation]);

    clock.advance(121);
    await untilStatus(id, (r) => r.status === 'running');
    const paused = await admin.post(`${base()}/${id}/pause`);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', nextAt: null, percent: 50 });
    expect((await admin.post(`${base()}/${id}/pause`)).status).toBe(409);
    clock.advance(600);
    await barrier();
    expect(await untilStatus(id, () => true)).toMatchObject({ status: 'paused', step: 0 });
    for (const instance of INSTANCES) {
      const expected = isIn(id, instance, 50) ? ['60', beat0.generation + 1] : ['45', beat0.generation];
      expect(received(instance, 'Timeout').at(-1), instance).toEqual(expected);
    }
    const resumed = await admin.post(`${base()}/${id}/resume`);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'running', step: 0 });
    clock.advance(60);
    await untilStatus(id, (r) => r.status === 'completed');
    await barrier();
    for (const instance of INSTANCES)
      expect(received(instance, 'Timeout').at(-1)).toEqual(['60', beat0.generation + 1]);
  });

  it('refuses bad settings with every problem named, and changes nothing', async () => {
    const timeout = (await entriesByKey(admin, serviceId, versionId)).Timeout as RestEntry;
    const bad = await admin.post(base(), {
      changes: [{ id: timeout.id, rawValue: 'not a number', generation: timeout.generation }],
      steps: [50, 10],
      stepSeconds: 60,
      bakeSeconds: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('strictly increasing');
    expect(bad.body.detail).toContain('end at 100');
    const badValue = await admin.post(base(), {
      changes: [{ id: timeout.id, rawValue: 'not a number', generation: timeout.generation }],
      steps: [100],
      stepSeconds: 60,
      bakeSeconds: 0,
    });
    expect(badValue.status).toBe(400);
    const stale = await admin.post(base(), {
      changes: [{ id: timeout.id, rawValue: '50', generation: timeout.generation - 1 }],
      steps: [100],
      stepSeconds: 60,
      bakeSeconds: 0,
    });
    expect(stale.status).toBe(409);
    const list = (await admin.get(`${base()}?status=running`)).body;
    expect(list).toEqual([]);
  });
});
