/**
 * Hot-path benchmark (issue "a change reaches one subscriber faster than etcd"): the REST write alone,
 * `/healthz`, and REST send → receipt at 1, 100, 1,000 and 10,000 subscribers, each beside a Redis
 * SET+PUBLISH baseline and an etcd PUT → watch baseline (up to `--etcd-sizes`) measured through the
 * same worker harness in the same run, reported as ratios.
 *
 *   node --import tsx packages/server/bench/realtime/hot-path.ts [--sizes 1,100,1000,10000] [--changes 50]
 *     [--etcd-sizes 1,100,1000]
 *
 * One server (the built JavaScript, SQLite file). Subscribers are raw HTTP/2 StartSubscribe streams,
 * one connection each, in worker processes (receipt time taken first thing in the DATA callback);
 * the Redis subscribers are one connection each in the same kind of workers. Latency = receipt −
 * the moment the REST call (or the Redis MULTI) was sent, on CLOCK_MONOTONIC shared by all processes.
 * Server RSS per idle subscriber: VmRSS before the streams open and after 3 s idle, over N. Redis is
 * skipped with a message when 127.0.0.1:6379 (BENCH_REDIS_URL) does not answer, etcd when there is no
 * etcd binary (etcd-baseline.ts). PostgreSQL figures:
 * pg-write.ts. Prints the figures; asserts nothing.
 */
import type { Redis } from 'ioredis';
import { Client } from 'undici';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, rssBytes, runMain, sleep } from './common.js';
import { figures, singleSetter, timeCalls, type Figures } from './rest-timing.js';
import { startEtcd, type EtcdBaseline } from './etcd-baseline.js';
import {
  connectRedis,
  publishChange,
  redisPid,
  redisUrl as defaultRedisUrl,
  roomForClients,
} from './redis-baseline.js';
import type { RestClient } from './server.js';
import { type ServerProcess, startSignedIn } from './server.js';
import { SubscriberPool } from './subscriber-pool.js';

const KEY = 'Bench:Seq';

function ratio(ours: number, baseline: number | undefined): string {
  return baseline === undefined || !(baseline > 0) ? '–' : `${fixed(ours / baseline, 1)}×`;
}

async function restFigures(server: ServerProcess, rest: RestClient, redis: Redis | null) {
  const { set } = await singleSetter(rest);
  const health = new Client(server.baseUrl, { keepAliveTimeout: 600_000 });
  const healthz = async () => {
    const res = await health.request({ path: '/healthz', method: 'GET' });
    await res.body.dump();
  };
  let n = 0;
  const write = () => set(`w-${n++}`);
  await timeCalls(500, write); // warm-up
  await timeCalls(500, healthz);
  const rows = {
    setBackToBack: await timeCalls(3000, write),
    setPaused: await timeCalls(300, write, () => 20 + Math.random() * 20),
    healthBackToBack: await timeCalls(3000, healthz),
    healthPaused: await timeCalls(300, healthz, () => 20 + Math.random() * 20),
    redisSet: redis
      ? await timeCalls(3000, async () => void (await redis.set('rc-bench:value', `w-${n++}`)))
      : undefined,
    redisSetPaused: redis
      ? await timeCalls(
          300,
          async () => void (await redis.set('rc-bench:value', `w-${n++}`)),
          () => 20 + Math.random() * 20,
        )
      : undefined,
  };
  await health.close();
  return rows;
}

interface FanoutRow {
  subscribers: number;
  kind: Kind;
  opened: number;
  each: Figures;
  all: Figures;
  /** Each receipt measured from the moment the answer (REST, or Redis's EXEC) was read. */
  afterAnswer: Figures;
  incomplete: number;
  rssPerSubscriberKiB: number;
}

type Kind = 'ours' | 'redis' | 'etcd';

const WORKER_SCRIPTS: Record<Kind, string> = {
  ours: './subscriber-worker.ts',
  redis: './redis-worker.ts',
  etcd: './etcd-worker.ts',
};

interface Baselines {
  readonly redis: Redis | null;
  readonly redisUrl: string;
  readonly etcd: EtcdBaseline | null;
}

async function fanout(
  kind: Kind,
  subscribers: number,
  changes: number,
  server: ServerProcess,
  rest: RestClient,
  { redis, redisUrl, etcd }: Baselines,
): Promise<FanoutRow> {
  const warmUp = 5;
  const maxChanges = warmUp + changes;
  const { set, ids } = await singleSetter(rest);
  const [serviceId = '', versionId = ''] = ids;
  const pid = kind === 'ours' ? server.pid : kind === 'etcd' ? etcd!.pid : await redisPid(redis!);
  const restoreLimit = kind === 'redis' ? await roomForClients(redis!, subscribers) : undefined;
  await sleep(1000);
  const rssBefore = rssBytes(pid);
  const pool = await SubscriberPool.open({
    tag: `${kind} ×${subscribers}`,
    script: WORKER_SCRIPTS[kind],
    url: kind === 'ours' ? server.baseUrl : kind === 'etcd' ? etcd!.url : redisUrl,
    serviceId,
    versionId,
    afterTimestampUs: Date.now() * 1000,
    key: KEY,
    subscribers,
    workers: subscribers >= 10_000 ? 4 : subscribers >= 1000 ? 2 : 1,
    maxChanges,
  });
  await sleep(3000);
  const rssAfter = rssBytes(pid);
  const sentAt = new Float64Array(maxChanges);
  const answeredAt = new Float64Array(maxChanges);
  let incomplete = 0;
  for (let seq = 0; seq < maxChanges; seq++) {
    const value = `change-${seq}`;
    sentAt[seq] = nowMs();
    if (kind === 'redis') await publishChange(redis!, value);
    else if (kind === 'etcd') await etcd!.put(KEY, value);
    else await set(value);
    answeredAt[seq] = nowMs();
    if (!(await pool.allReceived(seq, 20_000)) && seq >= warmUp) incomplete++;
    // The next change once every subscriber has this one, and at least 20–40 ms (1k+: 200 ms) later.
    await sleep((sentAt[seq] ?? 0) + (subscribers >= 1000 ? 200 : 20 + Math.random() * 20) - nowMs());
  }
  const reports = await pool.reports();
  const latency = SubscriberPool.latencies(reports, sentAt, warmUp, maxChanges, pool.failed);
  const afterAnswer = SubscriberPool.latencies(reports, answeredAt, warmUp, maxChanges, pool.failed);
  await pool.close();
  await restoreLimit?.();
  return {
    subscribers,
    kind,
    opened: pool.opened,
    each: figures(latency.samples),
    all: figures(latency.all),
    afterAnswer: figures(afterAnswer.samples),
    incomplete,
    rssPerSubscriberKiB: (rssAfter - rssBefore) / pool.opened / 1024,
  };
}

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const sizes = (args.get('sizes') ?? process.env.BENCH_HOT_SIZES ?? '1,100,1000,10000').split(',').map(Number);
  const changes = Number(args.get('changes') ?? 50);
  const redisUrl = defaultRedisUrl();
  log(`Hot-path benchmark: subscribers ${sizes.join(', ')}, ${changes} changes each\n${machine()}`);

  const { server, rest } = await startSignedIn({ name: 'A' });
  const redis = await connectRedis(redisUrl);
  if (!redis) log(`Redis baseline skipped: nothing answers at ${redisUrl}.`);
  const etcd = await startEtcd();
  if (!etcd) log('etcd baseline skipped: no etcd binary (apt-get install etcd-server, or BENCH_ETCD_BIN).');
  const etcdSizes = new Set((args.get('etcd-sizes') ?? '1,100,1000').split(',').map(Number));
  const baselines: Baselines = { redis, redisUrl, etcd };

  const rows = await restFigures(server, rest, redis);
  const fanouts: FanoutRow[] = [];
  for (const n of sizes) {
    fanouts.push(await fanout('ours', n, changes, server, rest, baselines));
    if (redis) fanouts.push(await fanout('redis', n, changes, server, rest, baselines));
    if (etcd && etcdSizes.has(n)) fanouts.push(await fanout('etcd', n, changes, server, rest, baselines));
    const last = fanouts.filter((r) => r.subscribers === n);
    log(
      `×${n}: ${last.map((r) => `${r.kind} each p50 ${fixed(r.each.p50, 2)} p99 ${fixed(r.each.p99, 2)} ms`).join('; ')}`,
    );
  }
  redis?.disconnect();
  await etcd?.stop();
  await server.stop();

  const restTable = markdownTable(
    ['request', 'p50 ms', 'p99 ms', 'Redis p50 ms', 'ratio p50'],
    [
      ['REST set of one value, back to back', rows.setBackToBack, rows.redisSet],
      ['REST set of one value, 20–40 ms pauses', rows.setPaused, rows.redisSetPaused],
      ['GET /healthz, back to back', rows.healthBackToBack, rows.redisSet],
      ['GET /healthz, 20–40 ms pauses', rows.healthPaused, rows.redisSetPaused],
    ].map(([label, ours, baseline]) => {
      const o = ours as Figures;
      const b = baseline as Figures | undefined;
      return [label as string, fixed(o.p50, 2), fixed(o.p99, 2), b ? fixed(b.p50, 2) : '–', ratio(o.p50, b?.p50)];
    }),
  );
  const fanoutTable = markdownTable(
    [
      'subscribers',
      'ours each p50 / p99 ms',
      'Redis each p50 / p99 ms',
      'ratio p50 / p99',
      'etcd each p50 / p99 ms',
      'ratio to etcd p50 / p99',
      'ours every-subscriber p99 ms',
      'after the answer p50 ms (ours / Redis)',
      'RSS KiB per idle subscriber (ours / Redis)',
      'incomplete',
    ],
    sizes.map((n) => {
      const ours = fanouts.find((r) => r.subscribers === n && r.kind === 'ours')!;
      const base = fanouts.find((r) => r.subscribers === n && r.kind === 'redis');
      const etcdRow = fanouts.find((r) => r.subscribers === n && r.kind === 'etcd');
      return [
        `${ours.opened}/${n}`,
        `${fixed(ours.each.p50, 2)} / ${fixed(ours.each.p99, 2)}`,
        base ? `${fixed(base.each.p50, 2)} / ${fixed(base.each.p99, 2)}` : '–',
        base ? `${ratio(ours.each.p50, base.each.p50)} / ${ratio(ours.each.p99, base.each.p99)}` : '–',
        etcdRow ? `${fixed(etcdRow.each.p50, 2)} / ${fixed(etcdRow.each.p99, 2)}` : '–',
        etcdRow ? `${ratio(ours.each.p50, etcdRow.each.p50)} / ${ratio(ours.each.p99, etcdRow.each.p99)}` : '–',
        fixed(ours.all.p99, 1),
        `${fixed(ours.afterAnswer.p50, 2)} / ${base ? fixed(base.afterAnswer.p50, 2) : '–'}`,
        // Below 1,000 the difference drowns in the allocator's noise.
        n >= 1000 ? `${fixed(ours.rssPerSubscriberKiB)} / ${base ? fixed(base.rssPerSubscriberKiB) : '–'}` : '–',
        String(ours.incomplete + (base?.incomplete ?? 0) + (etcdRow?.incomplete ?? 0)),
      ];
    }),
  );
  process.stdout.write(
    `\n${machine()}\n\nREST path (SQLite, one keep-alive HTTP/1.1 connection, session cookie; Redis: SET on one connection):\n\n${restTable}\n\n` +
      `REST send → receipt (SQLite; one HTTP/2 connection per subscriber; Redis: MULTI SET+PUBLISH → SUBSCRIBE, one connection per subscriber), ${changes} changes:\n\n${fanoutTable}\n` +
      (redis ? '' : `\nRedis baseline skipped: nothing answers at ${redisUrl}.\n`),
  );
});
