/**
 * The cost of validation on the hot path (docs/validation.md), against the built server in a
 * process of its own, on SQLite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) PostgreSQL:
 *
 * - a batch set of 1,000 values where every entry has a schema (a `pattern`, run by the linear-time
 *   engine, and two lengths), against the same batch on entries without one;
 * - a set of one value in a service with one validator on loopback (answering 204 at once), against
 *   the same set in a service without validators.
 *
 * The two sides of each pair are measured in alternate rounds, so drift of the machine touches both
 * alike. Prints p50 and p99 per call and the difference of the p50s.
 *
 *   npm run bench:validation
 *
 * BENCH_ROUNDS sets the calls measured per figure (default 30 batches, 200 single sets). Asserts
 * nothing about the figures; checks that every call wrote what it should.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fixed, log, machine, markdownTable, percentile, runCleanups, runMain } from './realtime/common.js';
import {
  postgresAdminUrl,
  postgresDatabase,
  RestClient,
  scrapeMetrics,
  sqliteDatabase,
  startServer,
  type BenchDatabase,
  type ServerProcess,
} from './realtime/server.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const SINGLE_ROUNDS = Math.max(ROUNDS, Number(process.env.BENCH_ROUNDS ?? 200));
const BATCH = 1000;
const SCHEMA = { minLength: 1, maxLength: 64, pattern: '^v[0-9]+-[0-9]+$' };

interface Figure {
  readonly database: string;
  readonly call: string;
  readonly p50: number;
  readonly p99: number;
  /** The server's CPU time per call, median. */
  readonly cpu: number;
}

type Entry = { id: string; key: string; generation: number };

/** CPU time the server process has used, in ms (user and system, from its /metrics). */
async function serverCpuMs(server: ServerProcess): Promise<number> {
  return ((await scrapeMetrics(server)).get('process_cpu_seconds_total') ?? Number.NaN) * 1000;
}

/**
 * Times the two sides of a pair in alternate rounds (after one warm-up each): the wall time of each
 * call, and the server's CPU time during it (which other work on a shared machine does not inflate
 * as much; each includes one /metrics answer, the same on both sides).
 */
async function pair(
  server: ServerProcess,
  rounds: number,
  sides: ReadonlyArray<readonly [string, (round: number) => Promise<void>]>,
): Promise<Array<{ name: string; times: number[]; cpu: number[] }>> {
  const results = sides.map(([name]) => ({ name, times: [] as number[], cpu: [] as number[] }));
  for (const [, call] of sides) await call(-1);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, call]] of sides.entries()) {
      const cpuBefore = await serverCpuMs(server);
      const start = performance.now();
      await call(round);
      results[i]?.times.push(performance.now() - start);
      results[i]?.cpu.push((await serverCpuMs(server)) - cpuBefore);
    }
  }
  return results;
}

/** A validator on loopback that passes everything at once. */
async function passingValidator(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls += 1;
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/validate`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function benchDatabase(database: BenchDatabase, figures: Figure[]): Promise<void> {
  log(`\n${database.label}: starting the server…`);
  const server = await startServer({
    name: `validation ${database.label}`,
    database,
    adminPassword: randomBytes(12).toString('base64url'),
    settings: ['--Webhooks:AllowPrivateNetworks=true'],
  });
  const validator = await passingValidator();
  try {
    const rest = new RestClient(server);
    await rest.signIn();
    const serviceId = await rest.createService('bench-validation');

    /** A version of `BATCH` String entries, each with `schema` (or none), made by one import. */
    const versionWith = async (label: string, schema: object | null) => {
      const versionId = await rest.createVersion(serviceId, label);
      const keys = Array.from({ length: BATCH }, (_, i) => `Bench:Key${i}`);
      const file = {
        values: Object.fromEntries(keys.map((k) => [k, 'v0-0'])),
        entries: Object.fromEntries(keys.map((k) => [k, { type: 'String', schema }])),
      };
      const url = `/api/configversions/${serviceId}/${versionId}/import?format=json&createMissing=true`;
      const plan = await rest.call<{ basedOn: string }>('POST', url, file);
      await rest.call('POST', `${url}&dryRun=false&basedOn=${encodeURIComponent(plan.basedOn)}`, file);
      const entries = await rest.call<Entry[]>('GET', `/api/configentries/${serviceId}/${versionId}`);
      if (entries.length !== BATCH) throw new Error(`expected ${BATCH} entries, got ${entries.length}`);
      return { versionId, entries: new Map(entries.map((e) => [e.id, e])) };
    };
    const setAll = async (target: { versionId: string; entries: Map<string, Entry> }, value: string) => {
      const updated = await rest.call<Entry[]>(
        'PUT',
        `/api/configentries/${serviceId}/${target.versionId}/set`,
        [...target.entries.values()].map((e) => ({ id: e.id, rawValue: value, generation: e.generation })),
      );
      if (updated.length !== target.entries.size) throw new Error(`the batch set answered ${updated.length}`);
      for (const u of updated) target.entries.set(u.id, u);
    };
    const plain = await versionWith('plain', null);
    const schemas = await versionWith('schemas', SCHEMA);
    const batches = await pair(server, ROUNDS, [
      [`batch set of ${BATCH} values, no schemas`, (round) => setAll(plain, `v${round + 2}-1`)],
      [`batch set of ${BATCH} values, a schema on each`, (round) => setAll(schemas, `v${round + 2}-1`)],
    ]);

    // One value, in a service without validators and in one with a validator on loopback.
    const single = async (name: string, withValidator: boolean) => {
      const id = await rest.createService(name);
      const versionId = await rest.createVersion(id, '1');
      const entry = await rest.call<Entry>('POST', `/api/configentries/${id}/${versionId}`, {
        key: 'Http:TimeoutSeconds',
        valueType: 6,
        rawValue: '30',
      });
      if (withValidator) await rest.call('POST', `/api/services/${id}/validators`, { url: validator.url });
      let generation = entry.generation;
      return async (round: number) => {
        const [updated] = await rest.call<Entry[]>('PUT', `/api/configentries/${id}/${versionId}/set`, [
          { id: entry.id, rawValue: String(100 + round), generation },
        ]);
        generation = (updated as Entry).generation;
      };
    };
    const singles = await pair(server, SINGLE_ROUNDS, [
      ['set of one value, no validator', await single('bench-unvalidated', false)],
      ['set of one value, one validator on loopback', await single('bench-validated', true)],
    ]);
    if (validator.calls() !== SINGLE_ROUNDS + 1) {
      throw new Error(`the validator was asked ${validator.calls()} times, not ${SINGLE_ROUNDS + 1}`);
    }
    for (const { name, times, cpu } of [...batches, ...singles]) {
      const figure = {
        database: database.label,
        call: name,
        p50: percentile(times, 0.5),
        p99: percentile(times, 0.99),
        cpu: percentile(cpu, 0.5),
      };
      log(
        `${database.label}: ${name}: p50 ${figure.p50.toFixed(2)} ms, p99 ${figure.p99.toFixed(2)} ms, server CPU ${figure.cpu.toFixed(2)} ms`,
      );
      figures.push(figure);
    }
  } finally {
    await validator.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  log(
    `Validation on the hot path: ${ROUNDS} batch sets of ${BATCH} values, ${SINGLE_ROUNDS} single sets\n${machine()}`,
  );
  const figures: Figure[] = [];
  await benchDatabase(sqliteDatabase(), figures);
  const postgres = postgresAdminUrl();
  if (postgres) await benchDatabase(await postgresDatabase(postgres), figures);
  else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  // Each "with" figure beside the "without" one measured in the same rounds.
  const rows = figures.map((f, i) => {
    const base = i % 2 === 1 ? figures[i - 1] : undefined;
    const change = (now: number, before: number) => (base ? `${(((now - before) / before) * 100).toFixed(1)} %` : '');
    return [
      f.database,
      f.call,
      fixed(f.p50, 2),
      fixed(f.p99, 2),
      change(f.p50, base?.p50 ?? 0),
      fixed(f.cpu, 2),
      change(f.cpu, base?.cpu ?? 0),
    ];
  });
  log(
    `\n${markdownTable(['database', 'call', 'p50 ms', 'p99 ms', 'p50 change', 'server CPU ms (p50)', 'CPU change'], rows, 2)}`,
  );
  await runCleanups();
}

runMain(main);
