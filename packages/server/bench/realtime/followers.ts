/**
 * Followers benchmark (docs/regions.md): a primary PostgreSQL cluster and a hot standby of it, both
 * started by the script (the server binaries under /usr/lib/postgresql/<major>/bin, as the tests do).
 *
 *   node --import tsx packages/server/bench/realtime/followers.ts [--changes 200] [--intervals 50,100,200,500,1000] [--seconds 20]
 *
 * 1. Latency: one server instance on the primary, two followers on the standby (Database:
 *    FollowIntervalMilliseconds 200, the default, and 50), an @realtime-config/client SDK on each.
 *    Per change the driver waits a random 0–200 ms after the previous change arrived everywhere (the
 *    longest interval measured, a multiple of the other: a change falls anywhere in either
 *    follower's read cycle alike), sends `PUT …/set` to the primary and records when each SDK's
 *    listener has the value; latency = receipt − send (monotonic clock). p99 of 200 changes is the
 *    second-worst.
 * 2. Database load of following: for each interval, one idle follower alone on the standby, its
 *    queries per second over `--seconds` (the server's own count, db_query_duration_seconds, which
 *    every query of the instance goes through) and the time the standby spent answering them.
 * Prints the figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { connect, defineConfig, group, string, type LiveConfig } from '@realtime-config/client';
import { createPgCluster, pgBinaries, type PgCluster } from '@realtime-config/test-support/pg-cluster';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, percentile, runMain, sleep } from './common.js';
import { RestClient, scrapeMetrics, startServer, type BenchDatabase, type ServerProcess } from './server.js';

const schema = defineConfig({ Bench: group({ Seq: string({ default: 'initial' }) }) });
const VERSION = '1.0.0';
/** The longest follow interval of the latency run: waits of 0 to this spread changes over every read cycle. */
const READ_CYCLE_MS = 200;

function clusterDatabase(cluster: PgCluster, label: string): BenchDatabase {
  return { kind: 'postgres', label, args: [`--Database:Url=${cluster.url('rc')}`] };
}

interface Listener {
  readonly label: string;
  readonly config: LiveConfig<typeof schema>;
  readonly receipts: Map<number, number>;
}

async function listenAt(label: string, server: ServerProcess, serviceId: string): Promise<Listener> {
  const config = await connect({ url: server.baseUrl, serviceId, version: VERSION, schema, logger: { warn: log } });
  const receipts = new Map<number, number>();
  config.subscribe((values) => {
    const seq = Number(values.Bench.Seq.split('-')[1]);
    if (!receipts.has(seq)) receipts.set(seq, nowMs());
  });
  return { label, config, receipts };
}

runMain(async () => {
  if (!pgBinaries) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin');
  const args = parseArgs(process.argv.slice(2));
  const changes = Number(args.get('changes') ?? 200);
  const intervals = (args.get('intervals') ?? '50,100,200,500,1000').split(',').map(Number);
  const seconds = Number(args.get('seconds') ?? 20);
  log(`Followers benchmark: ${changes} changes; load at ${intervals.join(', ')} ms\n${machine()}`);

  const primaryDb = await createPgCluster();
  const clusters: PgCluster[] = [primaryDb];
  try {
    await primaryDb.createDatabase('rc');
    const adminPassword = randomBytes(12).toString('base64url');
    const primary = await startServer({
      name: 'primary',
      database: clusterDatabase(primaryDb, 'primary'),
      adminPassword,
    });
    const standbyDb = await primaryDb.createStandby();
    clusters.push(standbyDb);
    const standby = clusterDatabase(standbyDb, 'standby');
    const follower = (interval: number) =>
      startServer({
        name: `follower-${interval}`,
        database: standby,
        adminPassword,
        settings: [`--Server:PrimaryUrl=${primary.baseUrl}`, `--Database:FollowIntervalMilliseconds=${interval}`],
      });

    // 1. Latency, primary write → SDK listener.
    const f200 = await follower(200);
    const f50 = await follower(50);
    const rest = new RestClient(primary);
    await rest.signIn();
    const serviceId = await rest.createService(`followers-${randomBytes(3).toString('hex')}`);
    const listeners = [
      await listenAt('SDK on the primary (LISTEN/NOTIFY)', primary, serviceId),
      await listenAt('SDK on a follower, interval 200 ms (default)', f200, serviceId),
      await listenAt('SDK on a follower, interval 50 ms', f50, serviceId),
    ];
    const versions = await rest.call<Array<{ id: string; versionLabel: string }>>(
      'GET',
      `/api/configversions/${serviceId}`,
    );
    const versionId = versions.find((v) => v.versionLabel === VERSION)?.id as string;
    const [entry] = await rest.call<Array<{ id: string; generation: number }>>(
      'GET',
      `/api/configentries/${serviceId}/${versionId}`,
    );
    if (!entry) throw new Error('the registered entry is missing');
    let generation = entry.generation;
    const sent = new Map<number, number>();
    const warmUp = 5;
    for (let seq = 0; seq < warmUp + changes; seq++) {
      await sleep(Math.random() * READ_CYCLE_MS);
      sent.set(seq, nowMs());
      const [updated] = await rest.call<Array<{ generation: number }>>(
        'PUT',
        `/api/configentries/${serviceId}/${versionId}/set`,
        [{ id: entry.id, rawValue: `seq-${seq}`, generation }],
      );
      generation = updated?.generation ?? generation;
      const deadline = nowMs() + 10_000;
      while (listeners.some((l) => !l.receipts.has(seq)) && nowMs() < deadline) await sleep(2);
    }
    const latencyRows = listeners.map((l) => {
      const samples: number[] = [];
      for (let seq = warmUp; seq < warmUp + changes; seq++) {
        const at = l.receipts.get(seq);
        if (at !== undefined) samples.push(at - (sent.get(seq) as number));
      }
      return [
        l.label,
        fixed(percentile(samples, 0.5), 1),
        fixed(percentile(samples, 0.99), 1),
        fixed(Math.max(...samples), 1),
        String(changes - samples.length),
      ];
    });
    for (const l of listeners) await l.config.close();
    await f200.stop();
    await f50.stop();

    // 2. Database load of one idle follower, by interval.
    const loadRows: string[][] = [];
    for (const interval of intervals) {
      const instance = await follower(interval);
      await sleep(2000);
      const before = await scrapeMetrics(instance);
      const started = nowMs();
      await sleep(seconds * 1000);
      const after = await scrapeMetrics(instance);
      const elapsed = (nowMs() - started) / 1000;
      const count =
        (after.get('db_query_duration_seconds_count') ?? 0) - (before.get('db_query_duration_seconds_count') ?? 0);
      const busy =
        (after.get('db_query_duration_seconds_sum') ?? 0) - (before.get('db_query_duration_seconds_sum') ?? 0);
      loadRows.push([
        `${interval} ms`,
        fixed(count / elapsed, 1),
        fixed(1000 / interval, 1),
        fixed((busy / elapsed) * 1000, 2),
        fixed(count > 0 ? (busy / count) * 1000 : Number.NaN, 3),
      ]);
      await instance.stop();
    }
    await primary.stop();

    process.stdout.write(`\n### Primary write → SDK listener (${changes} changes, ms from sending the REST write)\n\n`);
    process.stdout.write(`${markdownTable(['listener', 'p50 ms', 'p99 ms', 'max ms', 'missing'], latencyRows)}\n`);
    process.stdout.write(`\n### Database load of one idle follower instance (${seconds} s each)\n\n`);
    process.stdout.write(
      `${markdownTable(
        [
          'Database:FollowIntervalMilliseconds',
          'queries/s',
          'reads of the log (1000 / interval)',
          'standby ms busy per s',
          'ms per query',
        ],
        loadRows,
      )}\n`,
    );
  } finally {
    for (const cluster of clusters.reverse()) await cluster.destroy();
  }
});
