/**
 * Targeting and rollouts at 10,000 streams. Each stream is a raw gRPC StartSubscribe (one HTTP/2
 * connection, subscriber-worker.ts) that declares an instance id (`inst-<n>`) and one of 5 regions
 * as its label. Measures, in one run:
 * 1. one change at a time of a plain value, in three setups taken in turn, round after round:
 *    a. no targeting in the version (one encoding per batch);
 *    b. the changed entry has overrides for 5 label groups (region + tier, which no stream has: every
 *       stream still gets the value) and another entry of the version has a running rollout at 50 %
 *       (steps [50,100], stepSeconds 86400): what targeting costs every change;
 *    c. Redis pub/sub to as many subscribers (redis-worker.ts), MULTI SET + PUBLISH from the driver;
 *    per receipt the time from the REST answer (Redis: EXEC's answer) and from the send, per change
 *    the time until every stream had it, and the server's CPU time per change;
 * 2. rollouts of the benchmark entry at `--steps` with the real clock and scheduler
 *    (rollout-steps.ts): each entering stream's arrival − its step's start.
 *
 *   node --import tsx packages/server/bench/realtime/targeting.ts [--subscribers 10000] [--changes 30]
 *     [--rounds 3] [--workers 4] [--rollouts 3] [--steps 10,50,100] [--step-seconds 2] [--gap 200]
 *     [--client raw|grpc-js] [--idle-seconds 3]
 *
 * One server (the built JavaScript, SQLite file, Rollouts:TickMilliseconds at its default). Redis is
 * skipped with a message when nothing answers at 127.0.0.1:6379 (BENCH_REDIS_URL). Prints Markdown
 * tables; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { cpuMs, fixed, log, machine, nowMs, parseArgs, runMain, sleep } from './common.js';
import type { SubscriberIdentity } from './grpc-wire.js';
import { connectRedis, publishChange, redisPid, redisUrl, roomForClients } from './redis-baseline.js';
import { runRollouts, stepFigures, type RolloutPlan } from './rollout-steps.js';
import { startSignedIn } from './server.js';
import { SubscriberPool } from './subscriber-pool.js';
import { setupFigures, targetingReport, Timeline, type Measured, type Setup } from './targeting-report.js';

const KEY = 'Bench:Seq';
const REGIONS = ['eu', 'us', 'ap', 'sa', 'af'];
const IDENTITY: SubscriberIdentity = { idPrefix: 'inst-', labelKey: 'region', labelValues: REGIONS };
const WARM_UP = 5;

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const subscribers = Number(args.get('subscribers') ?? 10_000);
  const changes = Number(args.get('changes') ?? 30);
  const rounds = Number(args.get('rounds') ?? 3);
  const workers = Number(args.get('workers') ?? 4);
  const rollouts = Number(args.get('rollouts') ?? 3);
  const steps = (args.get('steps') ?? '10,50,100').split(',').map(Number);
  const stepSeconds = Number(args.get('step-seconds') ?? 2);
  const gapMs = Number(args.get('gap') ?? 200);
  // CPU with nothing changing is measured over this window before each round of each setup.
  const idleMs = Number(args.get('idle-seconds') ?? 3) * 1000;
  // Our subscribers: raw HTTP/2 streams, or grpc-js clients (own connection each, or shared per worker).
  const client = args.get('client') ?? 'raw';
  if (!['raw', 'grpc-js', 'grpc-js-shared'].includes(client))
    throw new Error(`--client: raw, grpc-js or grpc-js-shared`);
  const perRound = Math.ceil(changes / rounds);
  log(
    `Targeting: ${subscribers} streams (${client} subscribers), ${changes} changes per setup in ${rounds} rounds\n${machine()}`,
  );

  const { server, rest } = await startSignedIn({ name: 'A' });
  const serviceId = await rest.createService(`targeting-${randomBytes(4).toString('hex')}`);
  const versionId = await rest.createVersion(serviceId, '1.0.0');
  const entries = `/api/configentries/${serviceId}/${versionId}`;
  const x = await rest.createEntry(serviceId, versionId, KEY, 'initial');
  const y = await rest.createEntry(serviceId, versionId, 'Bench:RolledOut', 'initial');
  const generationOf = async (id: string) =>
    (await rest.call<Array<{ id: string; generation: number }>>('GET', entries)).find((e) => e.id === id)?.generation ??
    Number.NaN;

  const redis = await connectRedis(redisUrl());
  if (!redis) log(`Redis baseline skipped: nothing answers at ${redisUrl()}.`);
  const restoreLimit = redis ? await roomForClients(redis, subscribers) : undefined;

  const ours = new Timeline(2 * WARM_UP + 2 * rounds * perRound + rollouts);
  const theirs = new Timeline(WARM_UP + rounds * perRound);
  const open = (kind: 'ours' | 'redis', timeline: Timeline) =>
    SubscriberPool.open({
      tag: kind,
      script:
        kind === 'redis' ? './redis-worker.ts' : client === 'raw' ? './subscriber-worker.ts' : './grpcjs-worker.ts',
      url: kind === 'ours' ? server.baseUrl : redisUrl(),
      serviceId,
      versionId,
      afterTimestampUs: Date.now() * 1000,
      key: KEY,
      subscribers,
      workers,
      maxChanges: timeline.sentAt.length,
      ...(kind === 'ours' ? { identity: IDENTITY } : {}),
    });
  const pool = await open('ours', ours);
  const redisPool = redis ? await open('redis', theirs) : null;
  const pids = { ours: server.pid, redis: redis ? await redisPid(redis) : Number.NaN };

  // Setup b on and off: X's overrides, and a rollout of Y at 50 % (rolled back for a).
  let rolloutId: string | null = null;
  const overrides = async (list: unknown[]) => {
    const updated = await rest.call<{ generation: number }>('PUT', `${entries}/${x.id}/overrides`, {
      overrides: list,
      generation: await generationOf(x.id),
    });
    return updated.generation;
  };
  const setup = async (kind: Setup) => {
    if (kind === 'b' && !rolloutId) {
      await overrides(REGIONS.map((region) => ({ labels: { region, tier: 'canary' }, rawValue: `for-${region}` })));
      rolloutId = (
        await rest.call<{ id: string }>('POST', `/api/configversions/${serviceId}/${versionId}/rollouts`, {
          changes: [{ id: y.id, rawValue: 'rolled-out', generation: await generationOf(y.id) }],
          steps: [50, 100],
          stepSeconds: 86_400,
          bakeSeconds: 0,
        })
      ).id;
      const resolved = await rest.call<{ entries: Array<{ key: string; source: string }> }>(
        'GET',
        `/api/configversions/${serviceId}/${versionId}/resolve?labels=region%3Deu&instanceId=inst-0`,
      );
      if (resolved.entries.find((e) => e.key === KEY)?.source !== 'value')
        throw new Error(`setup b: ${KEY} does not resolve to its value: ${JSON.stringify(resolved)}`);
    } else if (kind === 'a' && rolloutId) {
      await overrides([]);
      await rest.call('POST', `/api/configversions/${serviceId}/${versionId}/rollouts/${rolloutId}/rollback`);
      rolloutId = null;
    }
    await sleep(1000); // the set-up's own events delivered, the server quiet again
  };
  /** CPU time the server (or redis-server) spends per second with nothing changing. */
  const idleCpu = async (pid: number) => {
    const [before, at] = [cpuMs(pid), nowMs()];
    await sleep(idleMs);
    return ((cpuMs(pid) - before) * 1000) / (nowMs() - at);
  };

  let generation = x.generation;
  const change = async (kind: Setup, seq: number) => {
    if (kind === 'c') return publishChange(redis as Redis, `change-${seq}`);
    const [updated] = await rest.call<Array<{ generation: number }>>('PUT', `${entries}/set`, [
      { id: x.id, rawValue: `change-${seq}`, generation },
    ]);
    generation = updated?.generation ?? generation + 1;
  };
  const measured: Record<Setup, Measured> = {
    a: { seqs: [], cpuMs: 0, subscriberCpuMs: 0, incomplete: 0, idle: [] },
    b: { seqs: [], cpuMs: 0, subscriberCpuMs: 0, incomplete: 0, idle: [] },
    c: { seqs: [], cpuMs: 0, subscriberCpuMs: 0, incomplete: 0, idle: [] },
  };
  const block = async (kind: Setup, count: number, counted: boolean) => {
    const [timeline, onPool, pid] =
      kind === 'c' ? [theirs, redisPool as SubscriberPool, pids.redis] : [ours, pool, pids.ours];
    if (kind !== 'c') generation = await generationOf(x.id);
    if (counted) measured[kind].idle.push(await idleCpu(pid));
    const cpuBefore = cpuMs(pid);
    const subscribersBefore = onPool.cpuMs();
    const began = nowMs();
    for (let k = 0; k < count; k++) {
      const seq = timeline.next++;
      timeline.sentAt[seq] = nowMs();
      await change(kind, seq);
      timeline.answeredAt[seq] = nowMs();
      const complete = await onPool.allReceived(seq, 20_000);
      if (counted) {
        measured[kind].seqs.push(seq);
        if (!complete) measured[kind].incomplete++;
      }
      await sleep((timeline.answeredAt[seq] ?? 0) + gapMs - nowMs());
    }
    if (counted) {
      measured[kind].cpuMs += cpuMs(pid) - cpuBefore;
      measured[kind].subscriberCpuMs += onPool.cpuMs() - subscribersBefore;
    }
    // CLOCK_MONOTONIC, as a --cpu-prof profile's timestamps: windows for cpuprofile-top.ts.
    log(`${kind}: ${count} changes from ${fixed(began, 0)} to ${fixed(nowMs(), 0)} ms (monotonic)`);
  };

  const kinds: Setup[] = redis ? ['a', 'b', 'c'] : ['a', 'b'];
  for (const kind of kinds) {
    await setup(kind);
    await block(kind, WARM_UP, false);
  }
  for (let round = 1; round <= rounds; round++) {
    for (const kind of kinds) {
      await setup(kind);
      await block(kind, Math.min(perRound, changes - (round - 1) * perRound), true);
    }
    log(`round ${round}/${rounds} done; load average ${loadNow()}`);
  }

  // 2. Rollouts of X, once the version is plain again.
  await setup('a');
  const plan: RolloutPlan = {
    rest,
    serviceId,
    versionId,
    entryId: x.id,
    pool,
    identity: IDENTITY,
    steps,
    stepSeconds,
    seqs: Array.from({ length: rollouts }, () => ours.next++),
    generation: await generationOf(x.id),
  };
  const runs = await runRollouts(plan);
  log(`rollouts done; load average ${loadNow()}`);

  const reports = await pool.reports();
  const redisReports = (await redisPool?.reports()) ?? [];
  await pool.close();
  await redisPool?.close();
  await restoreLimit?.();
  redis?.disconnect();
  await server.stop();
  const endedEarly = reports.reduce((s, r) => s + r.endedEarly, 0);

  const rows = kinds.map((kind) =>
    kind === 'c'
      ? setupFigures(kind, theirs, redisReports, redisPool?.failed ?? 0, measured.c)
      : setupFigures(kind, ours, reports, pool.failed, measured[kind]),
  );
  process.stdout.write(
    targetingReport({
      rows,
      steps: stepFigures(runs, reports, plan),
      rollouts: runs.length,
      plan,
      subscribers,
      opened: pool.opened,
      failed: pool.failed,
      endedEarly,
      changes,
      rounds,
      warmUp: WARM_UP,
    }) + (redis ? '' : `\nRedis baseline skipped: nothing answers at ${redisUrl()}.\n`),
  );
});
