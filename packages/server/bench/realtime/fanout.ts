/**
 * Fan-out benchmark: N StartSubscribe streams, each on its own HTTP/2 connection, held by K worker
 * processes; changes made one at a time through the REST write path
 * (`PUT /api/configentries/{s}/{v}/set`); for each change, the time from the REST answer until every
 * subscriber had it. Also the server's memory per open stream (RSS and V8 heap, before/after).
 *
 *   node --import tsx packages/server/bench/realtime/fanout.ts \
 *     --subscribers 1000 --changes 50 --database sqlite|postgres --instances 1|2 [--workers K]
 *     [--warmup 5] [--gap 200] [--idle 3000] [--snapshots DIR]
 *
 * With --instances 2 (PostgreSQL only) the subscribers are on instance B and the changes go through
 * instance A: the change crosses NOTIFY/LISTEN. PostgreSQL comes from BENCH_DATABASE_URL or
 * TEST_DATABASE_URL (an admin URL; a fresh database is created and dropped).
 * --snapshots DIR writes a V8 heap snapshot of the subscribers' server before and after the
 * streams are opened (see heap-diff.ts); writing a snapshot costs memory of its own, so the RSS
 * figures of such a run are not comparable. Prints the figures; asserts nothing about them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cpuMs,
  fixed,
  log,
  machine,
  markdownTable,
  mean,
  nowMs,
  parseArgs,
  percentile,
  rssBytes,
  runCleanups,
  runMain,
  sleep,
} from './common.js';
import {
  RestClient,
  postgresAdminUrl,
  postgresDatabase,
  scrapeMetrics,
  sqliteDatabase,
  startServer,
  type ServerProcess,
} from './server.js';
import { SubscriberPool } from './subscriber-pool.js';

export interface FanoutOptions {
  readonly label: string;
  readonly subscribers: number;
  readonly changes: number;
  readonly database: 'sqlite' | 'postgres';
  readonly instances: 1 | 2;
  /** Worker processes holding the subscribers (default: 2 up to 1,000 subscribers, else 4). */
  readonly workers?: number;
  /** Changes before the measured ones, not counted (default 5). */
  readonly warmUpChanges?: number;
  /** At least this long between one change's REST answer and the next change (default 200 ms). */
  readonly gapMs?: number;
  /** How long to wait for every subscriber to get a change before moving on (default 10 s). */
  readonly changeTimeoutMs?: number;
  /** Quiet time after the last stream opened, before the memory is read (default 3 s). */
  readonly idleMs?: number;
  /** Connections each worker opens at once (default 50). */
  readonly openConcurrency?: number;
  /** Folder for heap snapshots of the subscribers' server before and after opening the streams. */
  readonly snapshotDir?: string;
}

export interface FanoutResult {
  readonly label: string;
  readonly database: string;
  readonly instances: number;
  readonly subscribers: number;
  readonly workers: number;
  readonly opened: number;
  readonly failed: number;
  readonly openSeconds: number;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  /** (RSS with the streams − RSS before) / opened streams. */
  readonly rssPerStreamKiB: number;
  readonly heapUsedBeforeMiB: number;
  readonly heapUsedAfterMiB: number;
  /** V8 heap used after a full GC, with − before, per stream. */
  readonly heapPerStreamKiB: number;
  readonly heapTotalPerStreamKiB: number;
  readonly externalPerStreamKiB: number;
  /** RSS right after a full GC, with − before, per stream. */
  readonly rssAfterGcPerStreamKiB: number;
  readonly openSubscriptionsGauge: number;
  readonly changes: number;
  /** Changes that did not reach every subscriber within the timeout. */
  readonly incompleteChanges: number;
  /** Per change: time from the REST answer until the last subscriber received it. */
  readonly allP50: number;
  readonly allP99: number;
  readonly allMax: number;
  /** Per change: time from the REST answer until the first subscriber received it (median). */
  readonly firstP50: number;
  /** Mean over changes of the mean per-subscriber latency. */
  readonly meanPerSubscriber: number;
  /** Over every (change, subscriber) receipt. */
  readonly subscriberP50: number;
  readonly subscriberP99: number;
  /** REST request → answer. */
  readonly restP50: number;
  readonly restP99: number;
  /** Server CPU (user + system) per measured change on the subscribers' instance. */
  readonly serverCpuMsPerChange: number;
  readonly endedEarly: number;
  readonly notes: string;
}

const KEY = 'Bench:Seq';

async function waitForSnapshot(dir: string, before: ReadonlySet<string>): Promise<string> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const fresh = readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    const file = fresh[0];
    if (file) {
      // Written synchronously by the server; done when the size stops changing.
      let size = -1;
      for (;;) {
        await sleep(1000);
        const now = statSync(path.join(dir, file)).size;
        if (now === size && now > 0) return path.join(dir, file);
        size = now;
      }
    }
    if (Date.now() > deadline) throw new Error('no heap snapshot after 300 s');
    await sleep(500);
  }
}

async function heapSnapshot(server: ServerProcess, dir: string, name: string): Promise<void> {
  const before = new Set(readdirSync(dir));
  process.kill(server.pid, 'SIGUSR2');
  const file = await waitForSnapshot(dir, before);
  log(`${name}: heap snapshot ${file}`);
}

export async function runFanout(options: FanoutOptions): Promise<FanoutResult> {
  const n = options.subscribers;
  const workerCount = Math.max(1, Math.min(n, options.workers ?? (n <= 1000 ? 2 : 4)));
  const warmUp = options.warmUpChanges ?? 5;
  const gapMs = options.gapMs ?? 200;
  const changeTimeoutMs = options.changeTimeoutMs ?? 10_000;
  const idleMs = options.idleMs ?? 3000;
  const maxChanges = warmUp + options.changes;
  const tag = options.label;

  try {
    let database;
    if (options.database === 'postgres') {
      const adminUrl = postgresAdminUrl();
      if (!adminUrl) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
      database = await postgresDatabase(adminUrl);
    } else {
      if (options.instances !== 1) throw new Error('two instances need PostgreSQL');
      database = sqliteDatabase();
    }
    const snapshotFlags: string[] = [];
    if (options.snapshotDir) {
      mkdirSync(options.snapshotDir, { recursive: true });
      snapshotFlags.push(`--diagnostic-dir=${path.resolve(options.snapshotDir)}`, '--heapsnapshot-signal=SIGUSR2');
    }
    const adminPassword = randomBytes(12).toString('base64url');
    const writer = await startServer({
      name: 'A',
      database,
      adminPassword,
      nodeFlags: options.instances === 1 ? snapshotFlags : [],
    });
    const reader =
      options.instances === 2
        ? await startServer({ name: 'B', database, adminPassword, nodeFlags: snapshotFlags })
        : writer;
    log(
      `${tag}: ${database.label}, ${options.instances} instance(s): writes through pid ${writer.pid}, subscribers on pid ${reader.pid}`,
    );

    const rest = new RestClient(writer);
    await rest.signIn();
    const serviceId = await rest.createService(`fanout-${randomBytes(4).toString('hex')}`);
    const versionId = await rest.createVersion(serviceId, '1.0.0');
    const entry = await rest.createEntry(serviceId, versionId, KEY, 'initial');
    let generation = entry.generation;
    const setPath = `/api/configentries/${serviceId}/${versionId}/set`;

    // Memory before: the server is built, has answered a few requests and has no stream.
    await sleep(1000);
    const rssBefore = rssBytes(reader.pid);
    const gcBefore = await reader.memoryAfterGc();
    if (options.snapshotDir) await heapSnapshot(reader, options.snapshotDir, `${tag} before`);

    // Subscribers ask for changes after "now": nothing to backfill, as for an SDK that is up to date.
    const pool = await SubscriberPool.open({
      tag,
      url: reader.baseUrl,
      serviceId,
      versionId,
      afterTimestampUs: Date.now() * 1000,
      key: KEY,
      subscribers: n,
      workers: workerCount,
      maxChanges,
      openConcurrency: options.openConcurrency,
    });
    const { opened, failed, openSeconds } = pool;

    await sleep(idleMs);
    const rssAfter = rssBytes(reader.pid);
    const metricsAfter = await scrapeMetrics(reader);
    const gcAfter = await reader.memoryAfterGc();
    if (options.snapshotDir) await heapSnapshot(reader, options.snapshotDir, `${tag} with streams`);
    const heapBefore = gcBefore.heapUsed;
    const heapAfter = gcAfter.heapUsed;
    const externalDelta = gcAfter.external - gcBefore.external;
    log(
      `${tag}: RSS ${(rssBefore / 2 ** 20).toFixed(1)} → ${(rssAfter / 2 ** 20).toFixed(1)} MiB ` +
        `(${((rssAfter - rssBefore) / opened / 1024).toFixed(1)} KiB/stream); after a full GC: RSS ` +
        `${(gcBefore.rss / 2 ** 20).toFixed(1)} → ${(gcAfter.rss / 2 ** 20).toFixed(1)} MiB, heap used ` +
        `${(heapBefore / 2 ** 20).toFixed(1)} → ${(heapAfter / 2 ** 20).toFixed(1)} MiB, heap total ` +
        `${(gcBefore.heapTotal / 2 ** 20).toFixed(1)} → ${(gcAfter.heapTotal / 2 ** 20).toFixed(1)} MiB, external ` +
        `${(gcBefore.external / 2 ** 20).toFixed(1)} → ${(gcAfter.external / 2 ** 20).toFixed(1)} MiB`,
    );

    // Changes, one at a time.
    const sentAt = new Float64Array(maxChanges);
    const answeredAt = new Float64Array(maxChanges);
    let incomplete = 0;
    let cpuStart = 0;
    for (let seq = 0; seq < maxChanges; seq++) {
      if (seq === warmUp) cpuStart = cpuMs(reader.pid);
      sentAt[seq] = nowMs();
      const updated = await rest.call<Array<{ id: string; generation: number }>>('PUT', setPath, [
        { id: entry.id, rawValue: `change-${seq}`, generation },
      ]);
      answeredAt[seq] = nowMs();
      generation = updated[0]?.generation ?? generation + 1;
      const complete = await pool.allReceived(seq, changeTimeoutMs);
      if (!complete && seq >= warmUp) incomplete++;
      await sleep((answeredAt[seq] ?? 0) + gapMs - nowMs());
    }
    const serverCpuMsPerChange = (cpuMs(reader.pid) - cpuStart) / options.changes;

    const reports = await pool.reports();
    const latency = SubscriberPool.latencies(reports, answeredAt, warmUp, maxChanges, failed);
    const restTimes = Array.from(
      { length: options.changes },
      (_, k) => (answeredAt[warmUp + k] ?? 0) - (sentAt[warmUp + k] ?? 0),
    );
    const endedEarly = reports.reduce((s, r) => s + r.endedEarly, 0);
    const statuses = reports.map((r) => r.endedStatuses).filter(Boolean);
    const unexpected = reports.reduce((s, r) => s + r.unexpectedFrames, 0);

    const result: FanoutResult = {
      label: tag,
      database: database.label,
      instances: options.instances,
      subscribers: n,
      workers: workerCount,
      opened,
      failed,
      openSeconds,
      rssBeforeMiB: rssBefore / 2 ** 20,
      rssAfterMiB: rssAfter / 2 ** 20,
      rssPerStreamKiB: (rssAfter - rssBefore) / opened / 1024,
      heapUsedBeforeMiB: heapBefore / 2 ** 20,
      heapUsedAfterMiB: heapAfter / 2 ** 20,
      heapPerStreamKiB: (heapAfter - heapBefore) / opened / 1024,
      externalPerStreamKiB: externalDelta / opened / 1024,
      rssAfterGcPerStreamKiB: (gcAfter.rss - gcBefore.rss) / opened / 1024,
      heapTotalPerStreamKiB: (gcAfter.heapTotal - gcBefore.heapTotal) / opened / 1024,
      openSubscriptionsGauge: metricsAfter.get('realtime_open_subscriptions') ?? Number.NaN,
      changes: options.changes,
      incompleteChanges: incomplete,
      allP50: percentile(latency.all, 0.5),
      allP99: percentile(latency.all, 0.99),
      allMax: Math.max(...latency.all),
      firstP50: percentile(latency.first, 0.5),
      meanPerSubscriber: mean(latency.mean),
      subscriberP50: percentile(latency.samples, 0.5),
      subscriberP99: percentile(latency.samples, 0.99),
      restP50: percentile(restTimes, 0.5),
      restP99: percentile(restTimes, 0.99),
      serverCpuMsPerChange,
      endedEarly,
      notes: [
        endedEarly ? `${endedEarly} streams ended early (${statuses.join('; ')})` : '',
        unexpected ? `${unexpected} frames without a benchmark change` : '',
      ]
        .filter(Boolean)
        .join('; '),
    };
    log(
      `${tag}: all subscribers p50 ${fixed(result.allP50)} / p99 ${fixed(result.allP99)} / max ${fixed(result.allMax)} ms ` +
        `after the REST answer; mean per subscriber ${fixed(result.meanPerSubscriber)} ms; ` +
        `server CPU ${fixed(serverCpuMsPerChange)} ms/change` +
        (incomplete ? `; ${incomplete} incomplete changes` : ''),
    );
    return result;
  } finally {
    await runCleanups();
  }
}

export function fanoutMemoryTable(results: readonly FanoutResult[]): string {
  return markdownTable(
    [
      'scenario',
      'database',
      'streams open',
      'RSS before MiB',
      'RSS with streams MiB',
      'RSS KiB/stream',
      'RSS after GC KiB/stream',
      'heap used KiB/stream',
      'heap total KiB/stream',
      'external KiB/stream',
      'open time s',
    ],
    results.map((r) => [
      r.label,
      `${r.database}${r.instances > 1 ? ` ×${r.instances}` : ''}`,
      `${r.opened}/${r.subscribers}`,
      fixed(r.rssBeforeMiB),
      fixed(r.rssAfterMiB),
      fixed(r.rssPerStreamKiB),
      fixed(r.rssAfterGcPerStreamKiB),
      fixed(r.heapPerStreamKiB),
      fixed(r.heapTotalPerStreamKiB),
      fixed(r.externalPerStreamKiB, 2),
      fixed(r.openSeconds),
    ]),
    2,
  );
}

export function fanoutLatencyTable(results: readonly FanoutResult[]): string {
  return markdownTable(
    [
      'scenario',
      'subscribers',
      'changes',
      'all received p50 ms',
      'all received p99 ms',
      'max ms',
      'first p50 ms',
      'mean per subscriber ms',
      'per subscriber p99 ms',
      'REST p50 ms',
      'server CPU ms/change',
      'incomplete',
    ],
    results.map((r) => [
      r.label,
      String(r.opened),
      String(r.changes),
      fixed(r.allP50),
      fixed(r.allP99),
      fixed(r.allMax),
      fixed(r.firstP50),
      fixed(r.meanPerSubscriber),
      fixed(r.subscriberP99),
      fixed(r.restP50),
      fixed(r.serverCpuMsPerChange),
      String(r.incompleteChanges),
    ]),
  );
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  runMain(async () => {
    const args = parseArgs(process.argv.slice(2));
    const num = (name: string, fallback?: number) => (args.has(name) ? Number(args.get(name)) : fallback);
    const database = args.get('database') === 'postgres' ? 'postgres' : 'sqlite';
    const instances = num('instances', 1) === 2 ? 2 : 1;
    const subscribers = num('subscribers', 1000) ?? 1000;
    log(machine());
    const snapshotDir = args.get('snapshots');
    if (snapshotDir && !existsSync(snapshotDir)) mkdirSync(snapshotDir, { recursive: true });
    const result = await runFanout({
      label: `fanout ${subscribers}${instances === 2 ? ' cross-instance' : ''}`,
      subscribers,
      changes: num('changes', 50) ?? 50,
      database,
      instances,
      workers: num('workers'),
      warmUpChanges: num('warmup'),
      gapMs: num('gap'),
      idleMs: num('idle'),
      snapshotDir,
    });
    process.stdout.write(`\n${fanoutMemoryTable([result])}\n\n${fanoutLatencyTable([result])}\n`);
    if (result.notes) process.stdout.write(`\n${result.notes}\n`);
  });
}
