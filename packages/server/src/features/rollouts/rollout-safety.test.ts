import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ValueType } from '@realtime-config/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { entriesByKey, registerVersion, type RestEntry } from '@realtime-config/test-support/realtime-fixtures';
import {
  instanceStream,
  isInRollout,
  movableClock,
  receivedOf,
  untilRollout,
} from '@realtime-config/test-support/rollout-fixtures';
import { createTestDatabase, databaseKinds, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { startWebhookReceiver } from '@realtime-config/test-support/webhook-receiver';

/**
 * What keeps a rollout safe (docs/rollouts.md): it rolls itself back when instances that got the new
 * values go away and stay away, its progress survives a restart, and a protected version's rollout
 * comes only from an approved change request. Webhooks hear of its start and end.
 */

const onDisk = (dir: string): TestDatabase => ({
  name: 'sqlite',
  args: [`--Database:DataDir=${dir}`],
  drop: async () => rmSync(dir, { recursive: true, force: true }),
});

type Rollout = {
  id: string;
  status: string;
  step: number;
  reason: string | null;
  received: number;
  gone: number;
  nextAt: string | null;
  stepStartedAt: string | null;
};

describe.each(databaseKinds)('rollout safety (%s)', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let grpcClient: GrpcTestClient;
  let serviceId: string;
  let versionId: string;
  const clock = movableClock();
  // A restart must find the same data: SQLite in a directory of its own, not in memory.
  const database: Promise<TestDatabase> =
    kind === 'sqlite'
      ? Promise.resolve(onDisk(mkdtempSync(path.join(tmpdir(), 'rc-rollouts-'))))
      : createTestDatabase(kind);

  // What the server logs, for the scheduler's warnings.
  const logLines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) });
  const start = async () =>
    startTestServer({
      database: await database,
      args: ['--Rollouts:TickMilliseconds=20', '--Webhooks:AllowPrivateNetworks=true'],
      deps: { clock, logger },
    });

  beforeAll(async () => {
    server = await start();
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    serviceId = (await admin.post('/api/services', { name: 'safety' })).body.id;
    versionId = await registerVersion(grpcClient, serviceId, '1.0.0', [
      { key: 'Crashy', value: 'stable' },
      { key: 'Paced', value: 'v1' },
      { key: 'Reviewed', valueType: ValueType.NUMBER, value: '1' },
    ]);
  });
  afterAll(async () => {
    grpcClient?.close();
    await server?.close();
    await (await database).drop();
  });

  const base = () => `/api/configversions/${serviceId}/${versionId}/rollouts`;
  const entry = async (key: string) => (await entriesByKey(admin, serviceId, versionId))[key] as RestEntry;
  const until = (id: string, check: (r: Rollout) => boolean) => untilRollout<Rollout>(admin, `${base()}/${id}`, check);

  it('rolls itself back when instances that got the new values drop their streams and stay away', async () => {
    const receiver = await startWebhookReceiver();
    const hook = await admin.post(`/api/services/${serviceId}/webhooks`, {
      url: receiver.url,
      eventTypes: ['rollout.started', 'rollout.rolled_back'],
    });
    expect(hook.status, hook.text).toBe(201);
    const crashy = await entry('Crashy');
    const ids = Array.from({ length: 12 }, (_, i) => `app-${i}`);
    const streams = new Map<string, Subscription>(
      ids.map((id) => [id, instanceStream(grpcClient, { serviceId, versionId }, id)]),
    );
    try {
      await Promise.all([...streams.values()].map((s) => s.until(() => receivedOf(s, 'Crashy').length === 1)));
      const created = await admin.post(base(), {
        changes: [{ id: crashy.id, rawValue: 'crashes', generation: crashy.generation }],
        steps: [50, 100],
        stepSeconds: 600,
        bakeSeconds: 0,
        rollback: { disconnectedShare: 0.5 },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      const inside = ids.filter((i) => isInRollout(id, i, 50));
      expect(inside.length).toBeGreaterThanOrEqual(4);
      await Promise.all(inside.map((i) => streams.get(i)!.until((s) => receivedOf(s, 'Crashy').length === 2)));
      await until(id, (r) => r.received === inside.length);

      // Half of them crash. One comes back within the grace time: it does not count.
      const crashed = inside.slice(0, Math.ceil(inside.length / 2));
      for (const i of crashed) streams.get(i)!.cancel();
      await until(id, (r) => r.gone === crashed.length);
      clock.advance(10);
      const back = crashed[0] as string;
      streams.set(back, instanceStream(grpcClient, { serviceId, versionId }, back));
      await until(id, (r) => r.gone === crashed.length - 1);
      clock.advance(25);
      // Gone past the grace: crashed.length - 1 of inside.length, below the share of 0.5 → still running.
      const still = await until(id, (r) => r.gone === crashed.length - 1);
      expect(still.status).toBe('running');
      streams.get(back)!.cancel();
      await until(id, (r) => r.gone === crashed.length);
      clock.advance(31);
      const rolledBack = await until(id, (r) => r.status === 'rolled_back');
      expect(rolledBack.reason).toBe('instances disconnected after receiving the new values');

      // Those still connected that had the new value take the old one back, generation + 2.
      const g = crashy.generation;
      for (const i of inside.filter((i) => !crashed.includes(i))) {
        await streams.get(i)!.until((s) => receivedOf(s, 'Crashy').at(-1)?.[1] === g + 2);
        expect(receivedOf(streams.get(i)!, 'Crashy')).toEqual([
          ['stable', g],
          ['crashes', g + 1],
          ['stable', g + 2],
        ]);
      }
      expect(await entry('Crashy')).toMatchObject({ rawValue: 'stable', generation: g + 2 });
      const deliveries = await receiver.waitFor(2);
      const bodies = deliveries.map((d) => JSON.parse(d.body) as { type: string; data: Rollout });
      expect(bodies.map((b) => b.type)).toEqual(['rollout.started', 'rollout.rolled_back']);
      expect(bodies[1]!.data).toMatchObject({ id, status: 'rolled_back', reason: rolledBack.reason });
    } finally {
      for (const s of streams.values()) s.cancel();
      await admin.delete(`/api/services/${serviceId}/webhooks/${hook.body.id}`);
      await receiver.close();
    }
  });

  it('rolls back when the instances crash on the value at once, before any look at the fleet sees them', async () => {
    const crashy = await entry('Crashy');
    const ids = Array.from({ length: 16 }, (_, i) => `fast-${i}`);
    const streams = new Map(ids.map((id) => [id, instanceStream(grpcClient, { serviceId, versionId }, id)]));
    try {
      await Promise.all([...streams.values()].map((s) => s.until(() => receivedOf(s, 'Crashy').length === 1)));
      const created = await admin.post(base(), {
        changes: [{ id: crashy.id, rawValue: 'crashes-at-once', generation: crashy.generation }],
        steps: [50, 100],
        stepSeconds: 600,
        bakeSeconds: 0,
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      const inside = ids.filter((i) => isInRollout(id, i, 50));
      expect(inside.length).toBeGreaterThanOrEqual(2);
      // Each dies the moment the value arrives (cancelled within the same turn), as a crashing app does.
      await Promise.all(
        inside.map((i) =>
          streams.get(i)!.until((s) => {
            const got = receivedOf(s, 'Crashy').at(-1)?.[0] === 'crashes-at-once';
            if (got) s.cancel();
            return got;
          }),
        ),
      );
      await until(id, (r) => r.received === inside.length && r.gone === inside.length);
      clock.advance(31);
      const rolledBack = await until(id, (r) => r.status === 'rolled_back');
      expect(rolledBack.reason).toBe('instances disconnected after receiving the new values');
    } finally {
      for (const s of streams.values()) s.cancel();
    }
  });

  it('does not complete a bake shorter than the grace time while its receivers are gone', async () => {
    const crashy = await entry('Crashy');
    const ids = Array.from({ length: 6 }, (_, i) => `baked-${i}`);
    const streams = new Map(ids.map((id) => [id, instanceStream(grpcClient, { serviceId, versionId }, id)]));
    try {
      await Promise.all([...streams.values()].map((s) => s.until(() => receivedOf(s, 'Crashy').length === 1)));
      const created = await admin.post(base(), {
        changes: [{ id: crashy.id, rawValue: 'crashes-late', generation: crashy.generation }],
        steps: [100],
        stepSeconds: 60,
        bakeSeconds: 5,
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      await Promise.all(ids.map((i) => streams.get(i)!.until((s) => receivedOf(s, 'Crashy').length === 2)));
      for (const i of ids.slice(0, 3)) streams.get(i)!.cancel();
      await until(id, (r) => r.received === 6 && r.gone === 3);
      // The bake is over, but three of six are away: it holds instead of completing.
      clock.advance(6);
      // Its next move put off to when the grace time has passed for them (30 s after they left).
      const held = await until(
        id,
        (r) => r.nextAt !== null && Date.parse(r.nextAt) - Date.parse(r.stepStartedAt as string) > 20_000,
      );
      expect(held.status).toBe('baking');
      clock.advance(30);
      const rolledBack = await until(id, (r) => r.status === 'rolled_back');
      expect(rolledBack.reason).toBe('instances disconnected after receiving the new values');
      expect(await entry('Crashy')).toMatchObject({ rawValue: crashy.rawValue, generation: crashy.generation + 2 });
    } finally {
      for (const s of streams.values()) s.cancel();
    }
  });

  it('moves every other due rollout when one cannot move, and logs that one once', async () => {
    // A version of its own: one of its entries is broken at rest below.
    const ownVersion = await registerVersion(grpcClient, serviceId, '3.0.0', [
      { key: 'Broken', value: 'b1' },
      { key: 'Fine', value: 'f1' },
    ]);
    const rollouts = `/api/configversions/${serviceId}/${ownVersion}/rollouts`;
    const entries = await entriesByKey(admin, serviceId, ownVersion);
    const startOne = async (key: string, rawValue: string) => {
      const e = entries[key] as RestEntry;
      const created = await admin.post(rollouts, {
        changes: [{ id: e.id, rawValue, generation: e.generation }],
        steps: [50, 100],
        stepSeconds: 3600,
        bakeSeconds: 3600,
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    const broken = await startOne('Broken', 'b2');
    const fine = await startOne('Fine', 'f2');
    // The broken one's entry slot is unreadable JSON: moving it fails every time. Both are due, it first.
    const db = server.internals.database.db;
    const slot = await db
      .selectFrom('entries')
      .select('rollout')
      .where('id', '=', (entries.Broken as RestEntry).id)
      .executeTakeFirst();
    await db
      .updateTable('entries')
      .set({ rollout: '{not json' })
      .where('id', '=', (entries.Broken as RestEntry).id)
      .execute();
    logLines.length = 0;
    await db.updateTable('rollouts').set({ next_at: 0 }).where('id', '=', broken).execute();
    await db.updateTable('rollouts').set({ next_at: 1 }).where('id', '=', fine).execute();
    try {
      const moved = await untilRollout<Rollout>(admin, `${rollouts}/${fine}`, (r) => r.step === 1);
      expect(moved.status).toBe('baking');
      // Many more ticks (20 ms each) go by: the broken one is tried at each, and logged once.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const warnings = logLines.filter((l) => l.includes('moving a rollout failed') && l.includes(broken));
      expect(warnings).toHaveLength(1);
      expect((await admin.get(`${rollouts}/${broken}`)).body).toMatchObject({ status: 'running', step: 0 });
    } finally {
      await db
        .updateTable('entries')
        .set({ rollout: slot?.rollout ?? null })
        .where('id', '=', (entries.Broken as RestEntry).id)
        .execute();
      for (const id of [broken, fine]) await admin.post(`${rollouts}/${id}/rollback`);
    }
  });

  it('continues after a server restart: the schedule is in the database', async () => {
    const paced = await entry('Paced');
    const created = await admin.post(base(), {
      changes: [{ id: paced.id, rawValue: 'v2', generation: paced.generation }],
      steps: [10, 100],
      stepSeconds: 60,
      bakeSeconds: 60,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    grpcClient.close();
    await server.close();
    clock.advance(61);
    server = await start();
    admin = await server.admin();
    grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    const stream = instanceStream(grpcClient, { serviceId, versionId }, 'after-restart');
    try {
      const baking = await until(id, (r) => r.status === 'baking');
      expect(baking.step).toBe(1);
      await stream.until((s) => receivedOf(s, 'Paced').at(-1)?.[0] === 'v2');
      expect(receivedOf(stream, 'Paced').at(-1)).toEqual(['v2', paced.generation + 1]);
      clock.advance(61);
      await until(id, (r) => r.status === 'completed');
      expect(await entry('Paced')).toMatchObject({ rawValue: 'v2', generation: paced.generation + 1 });
    } finally {
      stream.cancel();
    }
  });

  it('on a protected version, rolls out only through an approved change request', async () => {
    const reviewed = await entry('Reviewed');
    const label = { versionLabel: '1.0.0' };
    expect(
      (await admin.put(`/api/configversions/${serviceId}/${versionId}`, { ...label, protected: true })).status,
    ).toBe(200);
    const settings = { steps: [20, 100], stepSeconds: 60, bakeSeconds: 0 };
    const direct = await admin.post(base(), {
      changes: [{ id: reviewed.id, rawValue: '2', generation: reviewed.generation }],
      ...settings,
    });
    expect(direct.status).toBe(409);
    expect(direct.body.detail).toMatch(/protected.*change request/);

    const requests = `/api/configversions/${serviceId}/${versionId}/changerequests`;
    const request = await admin.post(requests, {
      title: 'Raise it carefully',
      changes: [{ id: reviewed.id, rawValue: '2', generation: reviewed.generation }],
    });
    expect(request.status, request.text).toBe(201);
    await server.userWithRole('reviewer', 'developer');
    await admin.post(`/api/services/${serviceId}/members`, { userId: 'reviewer', role: 'editor' });
    const reviewer = await server.client().login('reviewer', 'reviewer-password-for-tests');
    expect((await reviewer.post(`${requests}/${request.body.id}/approve`)).status).toBe(200);
    const applied = await admin.post(`${requests}/${request.body.id}/apply`, { rollout: settings });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe('applied');

    const [rollout] = (await admin.get(`${base()}?status=running`)).body as Rollout[];
    expect(rollout).toMatchObject({ status: 'running', step: 0 });
    // The request names the rollout it started, in the answer and when read again.
    expect(applied.body.rolloutId).toBe(rollout!.id);
    expect((await admin.get(`${requests}/${request.body.id}`)).body.rolloutId).toBe(rollout!.id);
    // Not yet the value: instances in at 20 % have it, the entry keeps its own until completion.
    expect(await entry('Reviewed')).toMatchObject({ rawValue: '1', generation: reviewed.generation });
    const promoted = await admin.post(`${base()}/${rollout!.id}/promote`);
    expect(promoted.status, promoted.text).toBe(200);
    expect(await entry('Reviewed')).toMatchObject({ rawValue: '2', generation: reviewed.generation + 1 });
    const audit = (await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Rollout' })).body.entities as {
      action: string;
      changes: { changeRequest?: { id: string } };
    }[];
    const createdRecord = audit.find((a) => a.action === 'RolloutCreated' && a.changes.changeRequest);
    expect(createdRecord?.changes.changeRequest?.id).toBe(request.body.id);
  });
});
