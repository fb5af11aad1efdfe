/**
 * GetConfig benchmark: a version of 200 entries (created through REST), then 64 concurrent unary
 * GetConfig calls (each caller on its own HTTP/2 connection) from worker processes for a fixed
 * time; calls/s and latency percentiles, plus the server's CPU use in the window.
 *
 *   node --import tsx packages/server/bench/realtime/getconfig.ts [--entries 200] [--concurrency 64]
 *     [--workers 2] [--seconds 10] [--warmup 2] [--database sqlite|postgres] [--target server|floor]
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cpuMs,
  fixed,
  log,
  machine,
  markdownTable,
  nowMs,
  parseArgs,
  percentile,
  runCleanups,
  runMain,
  sleep,
} from './common.js';
import type { GetConfigStart, GetConfigWorkerMessage } from './getconfig-worker.js';
import { RestClient, postgresAdminUrl, postgresDatabase, sqliteDatabase, startServer } from './server.js';
import { WorkerProcess } from './worker-process.js';

export interface GetConfigOptions {
  readonly entries?: number;
  readonly concurrency?: number;
  readonly workers?: number;
  readonly seconds?: number;
  readonly warmUpSeconds?: number;
  readonly database?: 'sqlite' | 'postgres';
  /**
   * `floor`: against floor-server.ts (the one-port listener answering every GetConfig with one
   * pre-encoded frame, no app behind it) instead of the service: the ceiling of a native path.
   */
  readonly target?: 'server' | 'floor';
}

export interface GetConfigResult {
  readonly database: string;
  readonly entries: number;
  readonly concurrency: number;
  readonly workers: number;
  readonly seconds: number;
  readonly calls: number;
  readonly callsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  readonly responseBytes: number;
  /** Server CPU (user + system) in the window, in % of one core. */
  readonly serverCpuPercent: number;
  readonly notes: string;
}

export async function runGetConfig(options: GetConfigOptions = {}): Promise<GetConfigResult> {
  const entries = options.entries ?? 200;
  const concurrency = options.concurrency ?? 64;
  const workerCount = options.workers ?? 2;
  const seconds = options.seconds ?? 10;
  const warmUpSeconds = options.warmUpSeconds ?? 2;
  try {
    let url: string;
    let serverPid: number;
    let serviceId = '00000000-0000-4000-8000-000000000000';
    let databaseLabel = 'stand-in: one pre-encoded frame, no app';
    const label = '1.0.0';
    if (options.target === 'floor') {
      const floor = new WorkerProcess<{ type: 'listening'; port: number; pid: number }>(
        'floor server (one-port)',
        './floor-server.ts',
        { args: ['one-port'] },
      );
      const listening = await floor.waitFor('listening', 60_000);
      url = `http://127.0.0.1:${listening.port}`;
      serverPid = listening.pid;
    } else {
      let database;
      if (options.database === 'postgres') {
        const adminUrl = postgresAdminUrl();
        if (!adminUrl) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
        database = await postgresDatabase(adminUrl);
      } else {
        database = sqliteDatabase();
      }
      databaseLabel = `service on ${database.label}`;
      const server = await startServer({ name: 'A', database, adminPassword: randomBytes(12).toString('base64url') });
      url = server.baseUrl;
      serverPid = server.pid;
      const rest = new RestClient(server);
      await rest.signIn();
      serviceId = await rest.createService(`getconfig-${randomBytes(4).toString('hex')}`);
      const versionId = await rest.createVersion(serviceId, label);
      for (let i = 0; i < entries; i++) {
        // Keys and values of a typical application configuration.
        const key = `App:Section${String(i % 10).padStart(2, '0')}:Setting${String(i).padStart(3, '0')}`;
        await rest.createEntry(serviceId, versionId, key, `value-${randomBytes(12).toString('hex')}`);
      }
    }
    log(`getconfig: ${databaseLabel}, ${entries} entries ready, server pid ${serverPid}`);

    const workers = Array.from(
      { length: workerCount },
      (_, w) => new WorkerProcess<GetConfigWorkerMessage>(`getconfig worker ${w + 1}`, './getconfig-worker.ts'),
    );
    await Promise.all(workers.map((w) => w.waitFor('alive', 60_000)));
    const measureFrom = nowMs() + 1000 + warmUpSeconds * 1000;
    const measureUntil = measureFrom + seconds * 1000;
    const done = workers.map((w) => w.waitFor('done', 60_000 + (measureUntil - nowMs())));
    workers.forEach((worker, w) => {
      const callers = Math.floor(concurrency / workerCount) + (w < concurrency % workerCount ? 1 : 0);
      const start: GetConfigStart = {
        type: 'start',
        url,
        serviceId,
        label,
        callers,
        measureFrom,
        measureUntil,
        expectedEntries: entries,
      };
      worker.send({ ...start });
    });
    await sleep(measureFrom - nowMs());
    const cpuStart = cpuMs(serverPid);
    await sleep(measureUntil - nowMs());
    const cpuEnd = cpuMs(serverPid);
    const results = await Promise.all(done);

    const latencies = results.flatMap((r) => Array.from(r.latencies));
    const lastEnd = Math.max(...results.map((r) => r.lastEnd));
    const windowSeconds = (lastEnd - measureFrom) / 1000;
    const errors = results.reduce((s, r) => s + r.errors, 0);
    const result: GetConfigResult = {
      database: databaseLabel,
      entries,
      concurrency,
      workers: workerCount,
      seconds: windowSeconds,
      calls: latencies.length,
      callsPerSecond: latencies.length / windowSeconds,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: Math.max(...latencies),
      errors,
      responseBytes: results[0]?.responseBytes ?? 0,
      serverCpuPercent: ((cpuEnd - cpuStart) / (measureUntil - measureFrom)) * 100,
      notes: errors ? `first error: ${results.find((r) => r.firstError)?.firstError ?? ''}` : '',
    };
    log(
      `getconfig: ${result.callsPerSecond.toFixed(0)} calls/s, p50 ${fixed(result.p50, 2)} ms, p99 ${fixed(result.p99, 2)} ms, ` +
        `server CPU ${fixed(result.serverCpuPercent, 0)}% of a core, ${errors} errors, ${result.responseBytes} bytes per answer`,
    );
    return result;
  } finally {
    await runCleanups();
  }
}

export function getConfigTable(results: readonly GetConfigResult[]): string {
  return markdownTable(
    [
      'database',
      'entries',
      'concurrent calls',
      'answer bytes',
      'calls/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'server CPU % of a core',
      'errors',
    ],
    results.map((r) => [
      r.database,
      String(r.entries),
      `${r.concurrency} (${r.workers} procs)`,
      String(r.responseBytes),
      r.callsPerSecond.toFixed(0),
      fixed(r.p50, 2),
      fixed(r.p99, 2),
      fixed(r.max, 1),
      fixed(r.serverCpuPercent, 0),
      `${r.errors}/${r.calls + r.errors}`,
    ]),
  );
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  runMain(async () => {
    const args = parseArgs(process.argv.slice(2));
    const num = (name: string) => (args.has(name) ? Number(args.get(name)) : undefined);
    log(machine());
    const result = await runGetConfig({
      entries: num('entries'),
      concurrency: num('concurrency'),
      workers: num('workers'),
      seconds: num('seconds'),
      warmUpSeconds: num('warmup'),
      database: args.get('database') === 'postgres' ? 'postgres' : 'sqlite',
      target: args.get('target') === 'floor' ? 'floor' : 'server',
    });
    process.stdout.write(`\n${getConfigTable([result])}\n`);
    if (result.notes) process.stdout.write(`\n${result.notes}\n`);
  });
}
