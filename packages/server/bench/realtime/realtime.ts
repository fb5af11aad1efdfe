/**
 * Realtime benchmarks of the issue's targets, each against fresh server processes of the built
 * JavaScript, with the load generators in processes of their own; prints Markdown tables.
 *
 *   node --import tsx packages/server/bench/realtime/realtime.ts [scenario,…]
 *   BENCH_SCENARIOS=fanout1k,getconfig node --import tsx packages/server/bench/realtime/realtime.ts
 *
 * Scenarios (default: fanout1k,fanout10k,getconfig,cross):
 * - fanout1k   1,000 subscribers, 50 changes, SQLite, one instance
 * - fanout10k  10,000 subscribers, 50 changes, SQLite, one instance (also the memory target)
 * - getconfig  GetConfig of a 200-entry version, 64 concurrent calls for BENCH_SECONDS (default 10)
 * - cross      two instances on one PostgreSQL database: 1,000 subscribers on B, changes through A
 * - fanout1k-pg  1,000 subscribers on one PostgreSQL instance (NOTIFY/LISTEN without a second instance)
 * - floor10k   the same 10,000 subscribers against stand-in servers (plain Node HTTP/2 and the
 *              one-port listener) with nothing of the app behind them: Node's own cost per connection
 * - getconfig-floor  the GetConfig load against a stand-in answering with one pre-encoded frame on
 *              the raw stream: the ceiling of a native GetConfig path on this machine
 * PostgreSQL scenarios need BENCH_DATABASE_URL or TEST_DATABASE_URL (admin URL; a fresh database is
 * created and dropped) and are skipped without it. BENCH_JSON=<file> also writes the results as JSON.
 * Builds the server first (npm run build); BENCH_SKIP_BUILD=1 skips that.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fixed, log, machine, markdownTable, runMain } from './common.js';
import { fanoutLatencyTable, fanoutMemoryTable, runFanout, type FanoutResult } from './fanout.js';
import { floorTable, runFloor, type FloorResult } from './http2-floor.js';
import { getConfigTable, runGetConfig, type GetConfigResult } from './getconfig.js';
import { ensureBuilt, postgresAdminUrl } from './server.js';

const ALL = ['fanout1k', 'fanout10k', 'getconfig', 'cross', 'fanout1k-pg', 'floor10k', 'getconfig-floor'] as const;
type Scenario = (typeof ALL)[number];
const DEFAULT: readonly Scenario[] = ['fanout1k', 'fanout10k', 'getconfig', 'cross'];

function selected(): Scenario[] {
  const raw = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.env.BENCH_SCENARIOS ?? '';
  if (!raw.trim()) return [...DEFAULT];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(ALL as readonly string[]).includes(name))
      throw new Error(`unknown scenario ${name}; known: ${ALL.join(', ')}`);
  }
  return names as Scenario[];
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

runMain(async () => {
  const scenarios = selected();
  const changes = Number(process.env.BENCH_CHANGES ?? 50);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const postgres = postgresAdminUrl();
  log(`Realtime benchmarks: ${scenarios.join(', ')}\n${machine()}`);
  ensureBuilt();

  const fanouts: FanoutResult[] = [];
  const getconfigs: GetConfigResult[] = [];
  const floors: FloorResult[] = [];
  const skipped: string[] = [];
  const loads: string[] = [];
  const failures: string[] = [];
  const run = async (scenario: Scenario): Promise<void> => {
    switch (scenario) {
      case 'fanout1k':
        fanouts.push(
          await runFanout({ label: 'fan-out 1k', subscribers: 1000, changes, database: 'sqlite', instances: 1 }),
        );
        break;
      case 'fanout10k':
        fanouts.push(
          await runFanout({ label: 'fan-out 10k', subscribers: 10_000, changes, database: 'sqlite', instances: 1 }),
        );
        break;
      case 'getconfig':
        getconfigs.push(await runGetConfig({ seconds }));
        break;
      case 'getconfig-floor':
        getconfigs.push(await runGetConfig({ seconds, target: 'floor' }));
        break;
      case 'cross':
      case 'fanout1k-pg':
        if (!postgres) {
          skipped.push(`${scenario}: set BENCH_DATABASE_URL or TEST_DATABASE_URL to run it`);
          return;
        }
        fanouts.push(
          await runFanout({
            label: scenario === 'cross' ? 'cross-instance 1k' : 'fan-out 1k (PostgreSQL)',
            subscribers: 1000,
            changes,
            database: 'postgres',
            instances: scenario === 'cross' ? 2 : 1,
          }),
        );
        break;
      case 'floor10k':
        for (const mode of ['node-h2c', 'one-port']) floors.push(await runFloor(mode, 10_000, 20, 4));
        break;
    }
  };
  for (const scenario of scenarios) {
    const before = load();
    try {
      await run(scenario);
    } catch (error) {
      // One failed scenario (its processes and databases are already cleaned up) does not hide the others.
      log(`${scenario} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      failures.push(`${scenario} FAILED: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    loads.push(`${scenario}: ${before} → ${load()}`);
  }

  const out: string[] = [
    machine(),
    `Load average (1/5/15 min) before → after each scenario:\n${loads.map((l) => `  ${l}`).join('\n')}`,
  ];
  if (fanouts.length > 0) {
    out.push(`Memory of the instance holding the streams:\n\n${fanoutMemoryTable(fanouts)}`);
    out.push(`Change latency, from the REST answer:\n\n${fanoutLatencyTable(fanouts)}`);
  }
  if (getconfigs.length > 0) out.push(`GetConfig:\n\n${getConfigTable(getconfigs)}`);
  if (floors.length > 0) out.push(`Stand-in servers (no app):\n\n${floorTable(floors)}`);
  const targets = targetsTable(fanouts, getconfigs);
  if (targets) out.push(`Targets:\n\n${targets}`);
  const notes = [
    ...failures,
    ...fanouts.map((f) => (f.notes ? `${f.label}: ${f.notes}` : '')),
    ...getconfigs.map((g) => g.notes),
    ...skipped,
  ];
  if (notes.some(Boolean)) out.push(notes.filter(Boolean).join('\n'));
  process.stdout.write(`\n${out.join('\n\n')}\n`);
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify({ machine: machine(), fanouts, getconfigs, floors, loads }, null, 2),
    );
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
});

function targetsTable(fanouts: readonly FanoutResult[], getconfigs: readonly GetConfigResult[]): string {
  const rows: string[][] = [];
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const tenK = fanouts.find((f) => f.label === 'fan-out 10k');
  const oneK = fanouts.find((f) => f.label === 'fan-out 1k');
  const cross = fanouts.find((f) => f.label === 'cross-instance 1k');
  const getconfig = getconfigs.find((g) => g.database.startsWith('service'));
  if (tenK) {
    rows.push([
      '10,000 streams, ≤ 24 KB RSS each',
      `${tenK.opened} streams, ${fixed(tenK.rssPerStreamKiB)} KiB each (heap ${fixed(tenK.heapPerStreamKiB)} KiB)`,
      verdict(tenK.opened === 10_000 && tenK.rssPerStreamKiB * 1024 <= 24_576),
    ]);
  }
  if (oneK)
    rows.push(['1,000 subscribers within 100 ms (p99)', `${fixed(oneK.allP99)} ms`, verdict(oneK.allP99 <= 100)]);
  if (tenK)
    rows.push(['10,000 subscribers within 1 s (p99)', `${fixed(tenK.allP99)} ms`, verdict(tenK.allP99 <= 1000)]);
  if (getconfig) {
    rows.push([
      'GetConfig 200 entries: ≥ 5,000 calls/s, p99 < 20 ms at 64 concurrent',
      `${getconfig.callsPerSecond.toFixed(0)} calls/s, p99 ${fixed(getconfig.p99, 1)} ms`,
      verdict(getconfig.callsPerSecond >= 5000 && getconfig.p99 < 20),
    ]);
  }
  if (cross)
    rows.push([
      'Cross-instance, 1,000 subscribers within 150 ms (p99)',
      `${fixed(cross.allP99)} ms`,
      verdict(cross.allP99 <= 150),
    ]);
  return rows.length > 0 ? markdownTable(['target', 'measured', ''], rows, 3) : '';
}
