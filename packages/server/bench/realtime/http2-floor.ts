/**
 * The floor under the fan-out figures: the same subscriber workers (one HTTP/2 connection per
 * stream) against a stand-in server with nothing of the app behind it (floor-server.ts), in two
 * modes: a plain Node `http2.createServer()` and the service's one-port listener. What the real
 * server costs beyond this is what the app adds per stream and per delivery.
 *
 *   node --import tsx packages/server/bench/realtime/http2-floor.ts --subscribers 10000 [--changes 20]
 *     [--modes node-h2c,one-port] [--snapshots DIR]
 *
 * Latency here is measured from the moment the stand-in starts writing the frame to its streams
 * (there is no REST write or database in front of it).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cpuMs,
  fixed,
  log,
  machine,
  markdownTable,
  mean,
  parseArgs,
  percentile,
  rssBytes,
  runCleanups,
  runMain,
  sleep,
} from './common.js';
import { ensureBuilt } from './server.js';
import { SubscriberPool } from './subscriber-pool.js';
import { WorkerProcess } from './worker-process.js';

type FloorMessage =
  | { type: 'alive' }
  | { type: 'listening'; port: number; pid: number }
  | { type: 'memory'; usage: NodeJS.MemoryUsage; streams: number }
  | { type: 'broadcast'; seq: number; startedAt: number; writtenAt: number }
  | { type: 'snapshot'; file: string };

export interface FloorResult {
  readonly mode: string;
  readonly opened: number;
  readonly rssPerStreamKiB: number;
  readonly rssAfterGcPerStreamKiB: number;
  readonly heapPerStreamKiB: number;
  readonly allP50: number;
  readonly allP99: number;
  readonly meanPerSubscriber: number;
  /** Synchronous part of the writes (the loop over streams), per change. */
  readonly writeLoopMs: number;
  readonly serverCpuMsPerChange: number;
}

const KEY = 'Bench:Seq';

export async function runFloor(
  mode: string,
  subscribers: number,
  changes: number,
  workers: number,
  snapshotDir?: string,
): Promise<FloorResult> {
  try {
    const server = new WorkerProcess<FloorMessage>(`floor server (${mode})`, './floor-server.ts', {
      nodeFlags: ['--expose-gc'],
      args: [mode],
    });
    const listening = await server.waitFor('listening', 60_000);
    const memory = async () => {
      const answer = server.waitFor('memory', 60_000);
      server.send({ type: 'memory' });
      return (await answer).usage;
    };
    await sleep(1000);
    const snapshot = async (name: string) => {
      if (!snapshotDir) return;
      const written = server.waitFor('snapshot', 300_000);
      server.send({ type: 'snapshot', file: path.resolve(snapshotDir, `floor-${mode}-${name}.heapsnapshot`) });
      log(`floor ${mode}: heap snapshot ${(await written).file}`);
    };
    const rssBefore = rssBytes(listening.pid);
    const gcBefore = await memory();
    await snapshot('before');
    const warmUp = 3;
    const pool = await SubscriberPool.open({
      tag: `floor ${mode}`,
      url: `http://127.0.0.1:${listening.port}`,
      serviceId: '00000000-0000-4000-8000-000000000000',
      versionId: '00000000-0000-4000-8000-000000000000',
      afterTimestampUs: 0,
      key: KEY,
      subscribers,
      workers,
      maxChanges: warmUp + changes,
    });
    await sleep(3000);
    const rssAfter = rssBytes(listening.pid);
    const gcAfter = await memory();
    await snapshot(`${pool.opened}-streams`);

    const startedAt = new Float64Array(warmUp + changes);
    const loop: number[] = [];
    let cpuStart = 0;
    for (let seq = 0; seq < warmUp + changes; seq++) {
      if (seq === warmUp) cpuStart = cpuMs(listening.pid);
      const done = server.waitFor('broadcast', 10_000);
      server.send({ type: 'broadcast', seq, key: KEY });
      const written = await done;
      startedAt[seq] = written.startedAt;
      if (seq >= warmUp) loop.push(written.writtenAt - written.startedAt);
      await pool.allReceived(seq, 10_000);
      await sleep(written.startedAt + 200 - Number(process.hrtime.bigint() / 1000n) / 1000);
    }
    const serverCpuMsPerChange = (cpuMs(listening.pid) - cpuStart) / changes;
    const latency = SubscriberPool.latencies(await pool.reports(), startedAt, warmUp, warmUp + changes, pool.failed);
    const result: FloorResult = {
      mode,
      opened: pool.opened,
      rssPerStreamKiB: (rssAfter - rssBefore) / pool.opened / 1024,
      rssAfterGcPerStreamKiB: (gcAfter.rss - gcBefore.rss) / pool.opened / 1024,
      heapPerStreamKiB: (gcAfter.heapUsed - gcBefore.heapUsed) / pool.opened / 1024,
      allP50: percentile(latency.all, 0.5),
      allP99: percentile(latency.all, 0.99),
      meanPerSubscriber: mean(latency.mean),
      writeLoopMs: percentile(loop, 0.5),
      serverCpuMsPerChange,
    };
    log(
      `floor ${mode}: ${fixed(result.rssPerStreamKiB)} KiB RSS/stream (heap ${fixed(result.heapPerStreamKiB)}), ` +
        `all received p50 ${fixed(result.allP50)} / p99 ${fixed(result.allP99)} ms, CPU ${fixed(serverCpuMsPerChange)} ms/change`,
    );
    return result;
  } finally {
    await runCleanups();
  }
}

export function floorTable(results: readonly FloorResult[]): string {
  return markdownTable(
    [
      'stand-in server',
      'streams',
      'RSS KiB/stream',
      'RSS after GC KiB/stream',
      'heap used KiB/stream',
      'all received p50 ms',
      'all received p99 ms',
      'mean per subscriber ms',
      'write loop ms',
      'server CPU ms/change',
    ],
    results.map((r) => [
      r.mode,
      String(r.opened),
      fixed(r.rssPerStreamKiB),
      fixed(r.rssAfterGcPerStreamKiB),
      fixed(r.heapPerStreamKiB),
      fixed(r.allP50),
      fixed(r.allP99),
      fixed(r.meanPerSubscriber),
      fixed(r.writeLoopMs),
      fixed(r.serverCpuMsPerChange),
    ]),
  );
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  runMain(async () => {
    const args = parseArgs(process.argv.slice(2));
    const subscribers = Number(args.get('subscribers') ?? 1000);
    const changes = Number(args.get('changes') ?? 20);
    const workers = Number(args.get('workers') ?? (subscribers <= 1000 ? 2 : 4));
    const modes = (args.get('modes') ?? 'node-h2c,one-port').split(',');
    log(machine());
    ensureBuilt();
    const results: FloorResult[] = [];
    const snapshotDir = args.get('snapshots');
    if (snapshotDir) mkdirSync(snapshotDir, { recursive: true });
    for (const mode of modes) results.push(await runFloor(mode, subscribers, changes, workers, snapshotDir));
    process.stdout.write(`\n${floorTable(results)}\n`);
  });
}
