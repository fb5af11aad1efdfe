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
import { createTestDatabase, oneDatabaseKind, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * Two server instances on one database (PostgreSQL when the suite has it): both run the schedule,
 * exactly one takes each step, and the streams on both agree. Concurrent requests on one rollout
 * or one entry, many rounds: exactly one wins, the rest are refused, nothing is left half done.
 */

type Rollout = { id: string; status: string; step: number; reason: string | null };

describe.each(oneDatabaseKind)('rollouts on two server instances (%s)', (kind) => {
  let database: TestDatabase;
  let servers: TestServer[];
  let admins: ApiClient[];
  let clients: GrpcTestClient[];
  let serviceId: string;
  let versionId: string;
  const clock = movableClock();

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // With SQLite in memory each instance has its own database: the second is then a second process
    // on nothing shared, so the test uses one instance twice over (the races still hold).
    const start = () => startTestServer({ database, args: ['--Rollouts:TickMilliseconds=20'], deps: { clock } });
    servers = kind === 'postgres' ? [await start(), await start()] : [await start()];
    if (servers.length === 1) servers.push(servers[0] as TestServer);
    admins = await Promise.all(servers.map((s) => s.admin()));
    clients = servers.map((s) => new GrpcTestClient(`127.0.0.1:${s.port}`));
    serviceId = (await admins[0]!.post('/api/services', { name: 'two' })).body.id;
    versionId = await registerVersion(
      clients[0]!,
      serviceId,
      '1.0.0',
      Array.from({ length: 8 }, (_, i) => ({ key: `K${i}`, value: 'a' })),
    );
  });
  afterAll(async () => {
    for (const c of clients ?? []) c.close();
    for (const s of new Set(servers ?? [])) await s.close();
    await database?.drop();
  });

  const base = () => `/api/configversions/${serviceId}/${versionId}/rollouts`;
  const entries = () => entriesByKey(admins[0]!, serviceId, versionId);
  const settledThenAdvance = async (id: string, seconds: number) => {
    await untilRollout<Rollout & { gone: number }>(admins[0]!, `${base()}/${id}`, (r) => r.gone === 0);
    clock.advance(seconds);
  };

  it('takes each step once, on one instance, and the streams on both agree', async () => {
    const k0 = (await entries()).K0 as RestEntry;
    const ids = Array.from({ length: 20 }, (_, i) => `pod-${i}`);
    const streams: Array<[string, Subscription]> = ids.map((id, i) => [
      id,
      instanceStream(clients[i % 2]!, { serviceId, versionId }, id),
    ]);
    try {
      await Promise.all(streams.map(([, s]) => s.until(() => receivedOf(s, 'K0').length === 1)));
      const created = await admins[1]!.post(base(), {
        changes: [{ id: k0.id, rawValue: 'b', generation: k0.generation }],
        steps: [20, 60, 100],
        stepSeconds: 30,
        bakeSeconds: 30,
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      for (const [step, percent] of [
        [0, 20],
        [1, 60],
        [2, 100],
      ] as const) {
        // The instances' streams on the other server reach the presence table up to 2 s late: until
        // then a watcher may count them gone; moving the clock 30 s at once must not age that.
        if (step > 0) await settledThenAdvance(id, 30);
        await untilRollout<Rollout>(admins[step % 2]!, `${base()}/${id}`, (r) => r.step === step);
        for (const [instance, stream] of streams) {
          if (!isInRollout(id, instance, percent)) continue;
          await stream.until((s) => receivedOf(s, 'K0').at(-1)?.[0] === 'b');
        }
      }
      await settledThenAdvance(id, 30);
      await untilRollout<Rollout>(admins[0]!, `${base()}/${id}`, (r) => r.status === 'completed');
      for (const [instance, stream] of streams) {
        expect(receivedOf(stream, 'K0'), instance).toEqual([
          ['a', k0.generation],
          ['b', k0.generation + 1],
        ]);
      }
      const audit = (
        await admins[0]!.post('/api/auditlogs/search', { serviceId, entityType: 'Rollout', pageSize: 100 })
      ).body.entities as { entityId: string; action: string }[];
      const mine = audit.filter((a) => a.entityId === id).map((a) => a.action);
      // One record per move: two instances racing for each never both took one.
      expect(mine.sort()).toEqual(
        ['RolloutCompleted', 'RolloutCreated', 'RolloutStepped', 'RolloutStepped', 'RolloutStepped'].sort(),
      );
    } finally {
      for (const [, s] of streams) s.cancel();
    }
  });

  it('lets exactly one of two concurrent rollouts of an entry start, round after round', async () => {
    for (let round = 0; round < 10; round++) {
      const key = `K${1 + (round % 7)}`;
      const entry = (await entries())[key] as RestEntry;
      const body = (value: string) => ({
        changes: [{ id: entry.id, rawValue: value, generation: entry.generation }],
        steps: [100],
        stepSeconds: 1,
        bakeSeconds: 600,
      });
      const answers = await Promise.all([
        admins[0]!.post(base(), body(`x${round}`)),
        admins[1]!.post(base(), body(`y${round}`)),
        admins[0]!.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: entry.id, rawValue: `z${round}`, generation: entry.generation },
        ]),
      ]);
      const statuses = answers.map((a) => a.status);
      expect(
        statuses.filter((s) => s === 201 || s === 200),
        `round ${round}: ${statuses}`,
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(2);
      const active = ((await admins[0]!.get(`${base()}?status=baking`)).body as Rollout[]).concat(
        (await admins[0]!.get(`${base()}?status=running`)).body as Rollout[],
      );
      const winner = answers.findIndex((a) => a.status === 201 || a.status === 200);
      if (winner === 2) {
        expect(active).toEqual([]);
        continue;
      }
      expect(active).toHaveLength(1);
      // Promote and roll back at once: one of them ends it, the other finds it ended (409).
      const id = active[0]!.id;
      const ends = await Promise.all([
        admins[0]!.post(`${base()}/${id}/promote`),
        admins[1]!.post(`${base()}/${id}/rollback`),
      ]);
      expect(ends.map((e) => e.status).sort()).toEqual([200, 409]);
      const after = (await entries())[key] as RestEntry;
      const promoted = ends[0]!.status === 200;
      expect(after.generation).toBe(entry.generation + (promoted ? 1 : 2));
      expect(after.rawValue).toBe(promoted ? answers[winner]!.body.changes[0].rawValue : entry.rawValue);
    }
  });
});
