/**
 * SDK benchmark: REST change → @realtime-config/client `subscribe` listener, with the baselines of
 * the same run beside it (a raw gRPC subscriber on the native stream, and Redis SET + PUBLISH).
 *
 *   node --import tsx packages/server/bench/realtime/sdk.ts [--changes 200] [--clients 1000] [--workers 4]
 *
 * One server (the built JavaScript, SQLite) for every scenario; each scenario's listeners live in
 * worker processes of their own (workers run with --expose-gc, so the SDK's memory per client is
 * read after a full GC). Per change the driver records when it sent the REST call (monotonic clock
 * shared by all processes) and waits until every listener has it; latency = receipt − send. Redis
 * runs only when 127.0.0.1:6379 (BENCH_REDIS_URL) answers. Prints the figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, percentile, runMain, sleep } from './common.js';
import { connectRedis, publishChange, redisUrl as defaultRedisUrl } from './redis-baseline.js';
import { startSignedIn } from './server.js';
import { SubscriberPool } from './subscriber-pool.js';

const KEY = 'Bench:Seq';
const VERSION = '1.0.0'; // what sdk-worker.ts connects to
const MiB = 2 ** 20;

interface Scenario {
  readonly label: string;
  readonly kind: 'sdk' | 'grpc' | 'redis';
  readonly clients: number;
  readonly workers: number;
}

interface Row {
  readonly scenario: Scenario;
  readonly opened: number;
  /** Per change: until every listener had it. */
  readonly allP50: number;
  readonly allP99: number;
  /** Every (change, listener) receipt. */
  readonly eachP50: number;
  readonly eachP99: number;
  readonly incomplete: number;
  readonly memory?: { rssPerClientKiB: number; heapPerClientKiB: number; rssBeforeMiB: number; rssAfterMiB: number };
}

/** SET + PUBLISH as one MULTI, or null when no Redis answers. */
async function redisWriter(url: string): Promise<((value: string) => Promise<void>) | null> {
  const redis = await connectRedis(url);
  if (!redis) return null;
  process.once('exit', () => redis.disconnect());
  return (value) => publishChange(redis, value);
}

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const changes = Number(args.get('changes') ?? process.env.BENCH_SDK_CHANGES ?? 200);
  const many = Number(args.get('clients') ?? process.env.BENCH_SDK_CLIENTS ?? 1000);
  const workers = Number(args.get('workers') ?? 4);
  const warmUp = 5;
  const redisUrl = defaultRedisUrl();
  log(`SDK benchmark: ${changes} changes, 1 and ${many} clients\n${machine()}`);

  const { server, rest } = await startSignedIn({ name: 'A' });
  const publish = await redisWriter(redisUrl);

  const scenarios: Scenario[] = [
    { label: 'raw gRPC subscriber (native stream, no SDK)', kind: 'grpc', clients: 1, workers: 1 },
    { label: 'SDK client', kind: 'sdk', clients: 1, workers: 1 },
    ...(publish ? [{ label: 'Redis SET+PUBLISH → SUBSCRIBE', kind: 'redis' as const, clients: 1, workers: 1 }] : []),
    { label: 'raw gRPC subscribers (native stream, no SDK)', kind: 'grpc', clients: many, workers },
    { label: 'SDK clients', kind: 'sdk', clients: many, workers },
  ];
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const maxChanges = warmUp + changes;
    // A version of its own per scenario: Bench:Seq, registered the way an existing label is reused.
    const serviceId = await rest.createService(`sdk-bench-${randomBytes(4).toString('hex')}`);
    const versionId = await rest.createVersion(serviceId, VERSION);
    const entry = await rest.createEntry(serviceId, versionId, KEY, 'initial');
    let generation = entry.generation;
    const pool = await SubscriberPool.open({
      tag: `${scenario.label} ×${scenario.clients}`,
      script: { sdk: './sdk-worker.ts', grpc: './subscriber-worker.ts', redis: './redis-worker.ts' }[scenario.kind],
      nodeFlags: ['--expose-gc'],
      url: scenario.kind === 'redis' ? redisUrl : server.baseUrl,
      serviceId,
      versionId,
      afterTimestampUs: Date.now() * 1000,
      key: KEY,
      subscribers: scenario.clients,
      workers: scenario.workers,
      maxChanges,
    });
    const sentAt = new Float64Array(maxChanges);
    let incomplete = 0;
    for (let seq = 0; seq < maxChanges; seq++) {
      const value = `change-${seq}`;
      sentAt[seq] = nowMs();
      if (scenario.kind === 'redis' && publish) await publish(value);
      else {
        const updated = await rest.call<Array<{ generation: number }>>(
          'PUT',
          `/api/configentries/${serviceId}/${versionId}/set`,
          [{ id: entry.id, rawValue: value, generation }],
        );
        generation = updated[0]?.generation ?? generation + 1;
      }
      if (!(await pool.allReceived(seq, 10_000)) && seq >= warmUp) incomplete++;
      await sleep((sentAt[seq] ?? 0) + (scenario.clients > 1 ? 100 : 30) - nowMs());
    }
    const latency = SubscriberPool.latencies(await pool.reports(), sentAt, warmUp, maxChanges, pool.failed);
    const memory = pool.ready.filter((r) => r.memory);
    const delta = (pick: (m: NodeJS.MemoryUsage) => number) =>
      memory.reduce((sum, r) => sum + pick(r.memory!.after) - pick(r.memory!.before), 0) / pool.opened / 1024;
    rows.push({
      scenario,
      opened: pool.opened,
      allP50: percentile(latency.all, 0.5),
      allP99: percentile(latency.all, 0.99),
      eachP50: percentile(latency.samples, 0.5),
      eachP99: percentile(latency.samples, 0.99),
      incomplete,
      memory:
        // One client's figure would be mostly the modules it loads: per-client memory needs many.
        scenario.kind === 'sdk' && scenario.clients > 1 && memory.length > 0
          ? {
              rssPerClientKiB: delta((m) => m.rss),
              heapPerClientKiB: delta((m) => m.heapUsed),
              rssBeforeMiB: memory.reduce((s, r) => s + r.memory!.before.rss, 0) / MiB,
              rssAfterMiB: memory.reduce((s, r) => s + r.memory!.after.rss, 0) / MiB,
            }
          : undefined,
    });
    await pool.close();
    log(`${scenario.label} ×${scenario.clients}: p50 ${fixed(rows.at(-1)!.allP50, 2)} ms`);
  }
  await server.stop();

  const latencyTable = markdownTable(
    ['listeners', 'count', 'every listener: p50 ms', 'p99 ms', 'each receipt: p50 ms', 'p99 ms', 'incomplete'],
    rows.map((r) => [
      r.scenario.label,
      `${r.opened}/${r.scenario.clients}`,
      fixed(r.allP50, 2),
      fixed(r.allP99, 2),
      fixed(r.eachP50, 2),
      fixed(r.eachP99, 2),
      String(r.incomplete),
    ]),
  );
  const memoryTable = markdownTable(
    ['SDK clients', 'worker RSS before → after (MiB)', 'RSS per client (KiB)', 'V8 heap per client (KiB)'],
    rows
      .filter((r) => r.memory)
      .map((r) => [
        `${r.opened} in ${r.scenario.workers} process(es)`,
        `${fixed(r.memory!.rssBeforeMiB)} → ${fixed(r.memory!.rssAfterMiB)}`,
        fixed(r.memory!.rssPerClientKiB),
        fixed(r.memory!.heapPerClientKiB),
      ]),
  );
  process.stdout.write(
    `\n${machine()}\n\nChange latency from the moment the REST call (or Redis MULTI) is sent, over ${changes} changes` +
      ` (after ${warmUp} warm-up changes):\n\n${latencyTable}\n\nMemory of the SDK's processes, after a full GC:\n\n${memoryTable}\n` +
      (publish ? '' : `\nRedis baseline skipped: nothing answers at ${redisUrl}.\n`),
  );
});
