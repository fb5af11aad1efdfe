/**
 * The fleet: several server instances on one PostgreSQL database, each holding `--subscribers`
 * StartSubscribe streams (raw HTTP/2, one connection each, from worker processes with loopback
 * source addresses of their own). Measures
 * 1. one change → every stream: for `--changes` single-value sets through instance 2, the time from
 *    sending the REST call to each subscriber's receipt (every instance's subscribers included);
 * 2. server RSS per idle stream on each instance;
 * 3. reconnect storms: instance 1 is SIGKILLed, a change is made through instance 2 while it is
 *    down, instance 1 starts again on the same port. Once with a fixed wait of `pollingInterval`
 *    and once with the SDK's rule (`nextDelay`): the time from instance 1 answering /readyz until
 *    every subscriber had the missed change, subscribers that never got it or got it twice, and the
 *    reopened streams per 500 ms.
 *
 *   node --import tsx packages/server/bench/realtime/fleet.ts [--instances 3] [--subscribers 10000]
 *     [--workers 2] [--interval 5000] [--changes 20]
 *
 * With `--instances 1` a second instance that holds no streams takes the writes. Needs
 * BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin URL). Prints the figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import {
  fixed,
  log,
  machine,
  markdownTable,
  nowMs,
  parseArgs,
  percentile,
  rssBytes,
  runMain,
  sleep,
} from './common.js';
import type { FleetStart, FleetWorkerMessage, ReconnectPolicy } from './fleet-worker.js';
import { postgresAdminUrl, postgresDatabase, RestClient, startServer, type ServerProcess } from './server.js';
import { WorkerProcess } from './worker-process.js';

const KEY = 'Bench:Seq';
const WARM_UP = 3;
const BUCKET_MS = 500;

interface Options {
  readonly instances: number;
  readonly subscribers: number;
  readonly workers: number;
  readonly intervalMs: number;
  readonly changes: number;
}

interface Worker {
  readonly process: WorkerProcess<FleetWorkerMessage>;
  readonly instance: number;
}

interface StormResult {
  readonly policy: ReconnectPolicy;
  readonly streams: number;
  readonly downMs: number;
  readonly catchUpMs: number;
  readonly missed: number;
  readonly twice: number;
  readonly attemptsWhileDown: number;
  /** Streams reopened, by half second after instance 1 was ready. */
  readonly histogram: Map<number, number>;
}

type Report = Extract<FleetWorkerMessage, { type: 'report' }>;

async function reports(workers: readonly Worker[]): Promise<Report[]> {
  return Promise.all(
    workers.map((w) => {
      const answer = w.process.waitFor('report', 120_000);
      w.process.send({ type: 'report' });
      return answer;
    }),
  );
}

/** Resolves once every worker reported that all its subscribers have change `seq`. */
function everywhere(workers: readonly Worker[], seq: number, timeoutMs: number): Promise<void> {
  return Promise.all(
    workers.map(async (w) => {
      const complete = await w.process.waitFor('complete', timeoutMs);
      if (complete.seq !== seq) throw new Error(`worker reported change ${complete.seq}, expected ${seq}`);
    }),
  ).then(() => undefined);
}

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const options: Options = {
    instances: Number(args.get('instances') ?? 3),
    subscribers: Number(args.get('subscribers') ?? 10_000),
    workers: Number(args.get('workers') ?? 2),
    intervalMs: Number(args.get('interval') ?? 5000),
    changes: Number(args.get('changes') ?? 20),
  };
  const adminUrl = postgresAdminUrl();
  if (!adminUrl) {
    log('Fleet benchmark skipped: it needs PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL).');
    return;
  }
  log(
    `Fleet: ${options.instances} instance(s) × ${options.subscribers} streams, ${options.workers} worker process(es) ` +
      `per instance, pollingInterval ${options.intervalMs} ms\n${machine()}`,
  );
  const database = await postgresDatabase(adminUrl);
  const adminPassword = randomBytes(12).toString('base64url');
  const servers: ServerProcess[] = [];
  for (let k = 0; k < Math.max(2, options.instances); k++)
    servers.push(await startServer({ name: `I${k + 1}`, database, adminPassword }));
  const rest = new RestClient(servers[1]!);
  await rest.signIn();
  const serviceId = await rest.createService(`fleet-${randomBytes(4).toString('hex')}`);
  const versionId = await rest.createVersion(serviceId, '1.0.0');
  const entry = await rest.createEntry(serviceId, versionId, KEY, 'initial');
  let generation = entry.generation;
  const set = async (seq: number) => {
    const [updated] = await rest.call<Array<{ generation: number }>>(
      'PUT',
      `/api/configentries/${serviceId}/${versionId}/set`,
      [{ id: entry.id, rawValue: `change-${seq}`, generation }],
    );
    generation = updated?.generation ?? generation;
  };

  const stormSeq = { fixed: WARM_UP + options.changes, jitter: WARM_UP + options.changes + 1 } as const;
  const maxChanges = WARM_UP + options.changes + 2;
  const per = Math.ceil(options.subscribers / options.workers);
  const rssBefore = servers.map((s) => rssBytes(s.pid));
  const gcBefore = await Promise.all(servers.map((s) => s.memoryAfterGc()));
  const afterTimestampUs = Date.now() * 1000;
  const workers: Worker[] = [];
  for (let k = 0; k < options.instances; k++)
    for (let w = 0; w < options.workers; w++) {
      const index = workers.length;
      workers.push({
        instance: k,
        process: new WorkerProcess<FleetWorkerMessage>(`fleet-${k + 1}-${w}`, './fleet-worker.ts'),
      });
      workers[index]!.process.send({
        type: 'start',
        url: servers[k]!.baseUrl,
        localAddress: `127.0.0.${2 + index}`,
        serviceId,
        versionId,
        afterTimestampUs,
        key: KEY,
        subscribers: per,
        maxChanges,
        policy: 'fixed',
        intervalMs: options.intervalMs,
      } satisfies FleetStart);
    }
  const openedAt = nowMs();
  await Promise.all(workers.map((w) => w.process.waitFor('ready', 600_000)));
  const all = per * workers.length;
  log(`${all} streams open in ${fixed((nowMs() - openedAt) / 1000)} s; idle 5 s`);
  await sleep(5000);
  const holders = servers.slice(0, options.instances);
  const streamsPerInstance = per * options.workers;
  const rssPerStream = holders.map((s, k) => (rssBytes(s.pid) - (rssBefore[k] ?? 0)) / streamsPerInstance / 1024);
  const gcAfter = await Promise.all(holders.map((s) => s.memoryAfterGc()));
  const perStreamAfterGc = (what: 'rss' | 'heapUsed') =>
    gcAfter.map((m, k) => (m[what] - (gcBefore[k]?.[what] ?? 0)) / streamsPerInstance / 1024);
  log(
    `RSS per idle stream (KiB): ${rssPerStream.map((v) => fixed(v)).join(' / ')}; after a full GC ` +
      `${perStreamAfterGc('rss')
        .map((v) => fixed(v))
        .join(' / ')}, of it JS heap ` +
      `${perStreamAfterGc('heapUsed')
        .map((v) => fixed(v))
        .join(' / ')}`,
  );

  // 1. One change → every stream.
  const sentAt = new Float64Array(WARM_UP + options.changes);
  for (let seq = 0; seq < WARM_UP + options.changes; seq++) {
    const done = everywhere(workers, seq, 60_000);
    sentAt[seq] = nowMs();
    await set(seq);
    await done;
    await sleep(300 + Math.random() * 200);
  }
  const latencyReports = await reports(workers);
  const each: number[] = [];
  const last: number[] = [];
  for (let seq = WARM_UP; seq < WARM_UP + options.changes; seq++) {
    let slowest = 0;
    for (const report of latencyReports)
      for (let i = 0; i < per; i++) {
        const ms = (report.receipts[seq * per + i] ?? Number.NaN) - (sentAt[seq] ?? 0);
        each.push(ms);
        slowest = Math.max(slowest, ms);
      }
    last.push(slowest);
  }
  log(
    `one change → ${all} streams: each p50 ${fixed(percentile(each, 0.5))} / p99 ${fixed(percentile(each, 0.99))} ms`,
  );

  // 2. Reconnect storms on instance 1.
  const storms: StormResult[] = [];
  for (const policy of ['fixed', 'jitter'] as const) {
    for (const w of workers) w.process.send({ type: 'policy', policy });
    await reports(workers); // empties the attempt and reopen records
    const seq = stormSeq[policy];
    const done = everywhere(workers, seq, 300_000);
    const downAt = nowMs();
    await servers[0]!.kill();
    await set(seq); // while instance 1 is down: its clients must get it once they are back
    servers[0] = await startServer({ name: 'I1', database, adminPassword, port: servers[0]!.port });
    const upAt = nowMs();
    log(`${policy}: instance 1 killed and ready again after ${fixed(upAt - downAt, 0)} ms`);
    await done;
    const catchUpMs = nowMs() - upAt;
    await sleep(options.intervalMs * 2); // anything sent twice would have arrived by now
    const histogram = new Map<number, number>();
    let missed = 0;
    let twice = 0;
    let attemptsWhileDown = 0;
    const stormReports = await reports(workers);
    stormReports.forEach((report, index) => {
      if (workers[index]!.instance !== 0) return;
      for (const at of report.opens) {
        const bucket = Math.max(0, Math.floor((at - upAt) / BUCKET_MS) * BUCKET_MS); // may open just before /readyz is seen
        histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
      }
      for (const at of report.attempts) if (at < upAt) attemptsWhileDown++;
    });
    for (const report of stormReports)
      for (let i = 0; i < per; i++) {
        const got = report.counts[seq * per + i] ?? 0;
        if (got === 0) missed++;
        if (got > 1) twice++;
      }
    log(`${policy}: every subscriber had the missed change ${fixed(catchUpMs, 0)} ms after instance 1 was ready`);
    storms.push({
      policy,
      streams: streamsPerInstance,
      downMs: upAt - downAt,
      catchUpMs,
      missed,
      twice,
      attemptsWhileDown,
      histogram,
    });
  }
  await Promise.all(workers.map((w) => w.process.stop()));
  for (const server of servers) await server.stop();

  const bound = options.intervalMs * 1.2 + 5000;
  const buckets = [...new Set(storms.flatMap((r) => [...r.histogram.keys()]))].sort((a, b) => a - b);
  process.stdout.write(
    `\n${machine()}\n\n` +
      markdownTable(
        [
          'streams',
          'each p50 ms',
          'each p99 ms',
          'every stream p50 ms',
          'every stream p99 ms',
          'RSS KiB per idle stream',
          'after a full GC',
          'JS heap of it',
        ],
        [
          [
            `${all} (${options.instances} × ${per * options.workers})`,
            fixed(percentile(each, 0.5)),
            fixed(percentile(each, 0.99)),
            fixed(percentile(last, 0.5)),
            fixed(percentile(last, 0.99)),
            rssPerStream.map((kib) => fixed(kib)).join(' / '),
            perStreamAfterGc('rss')
              .map((kib) => fixed(kib))
              .join(' / '),
            perStreamAfterGc('heapUsed')
              .map((kib) => fixed(kib))
              .join(' / '),
          ],
        ],
      ) +
      '\n\n' +
      markdownTable(
        [
          'wait',
          'streams on instance 1',
          'killed → ready ms',
          'all caught up after ready, ms',
          'bound (interval × 1.2 + 5 s)',
          'missed',
          'twice',
          'attempts while down',
        ],
        storms.map((r) => [
          r.policy === 'jitter' ? 'nextDelay (± 20 %, then full jitter)' : 'fixed pollingInterval',
          String(r.streams),
          fixed(r.downMs, 0),
          fixed(r.catchUpMs, 0),
          fixed(bound, 0),
          String(r.missed),
          String(r.twice),
          String(r.attemptsWhileDown),
        ]),
      ) +
      `\n\nStreams reopened on instance 1 per ${BUCKET_MS} ms after it was ready again:\n\n` +
      markdownTable(
        ['ms after ready', ...storms.map((r) => r.policy)],
        buckets.map((b) => [`${b}–${b + BUCKET_MS}`, ...storms.map((r) => String(r.histogram.get(b) ?? 0))]),
      ) +
      '\n',
  );
});
