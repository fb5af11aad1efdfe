/**
 * Large writes: a 1,000-value batch set and a 5,000-key import, on SQLite and (with
 * BENCH_DATABASE_URL or TEST_DATABASE_URL) PostgreSQL, against the built server in a process of its
 * own. Prints, per call, the p50 and p99 time and the SQL statements the server ran (the count of
 * `db_query_duration_seconds` in /metrics, which times every statement; the few statements of the
 * session lookup included).
 *
 *   npm run bench:entry-writes
 *
 * BENCH_ROUNDS sets the calls measured per figure (default 15 batches, a third of that imports).
 * BENCH_BASELINE names another checkout, built (`npm ci` there): its server is measured the same way
 * in the same run, on the same databases' kinds, for a before/after comparison. Asserts nothing
 * about the figures; checks only that every call wrote what it should.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
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

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const BATCH = 1000;
const IMPORT_KEYS = 5000;

const BASELINE = process.env.BENCH_BASELINE
  ? path.resolve(process.env.BENCH_BASELINE, 'packages/server/dist/server/src/main.js')
  : undefined;

interface Figure {
  readonly server: string;
  readonly database: string;
  readonly call: string;
  readonly p50: number;
  readonly p99: number;
  readonly statements: number;
}

async function statementsSoFar(server: ServerProcess): Promise<number> {
  const metrics = await scrapeMetrics(server);
  let total = 0;
  for (const [name, value] of metrics) if (name.startsWith('db_query_duration_seconds_count{')) total += value;
  return total;
}

/** Times `rounds` calls of `call` and counts the statements they ran. */
async function measure(
  server: ServerProcess,
  [serverName, database]: readonly [string, string],
  name: string,
  rounds: number,
  call: (round: number) => Promise<void>,
): Promise<Figure> {
  await call(-1); // warm-up
  const times: number[] = [];
  const before = await statementsSoFar(server);
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await call(round);
    times.push(performance.now() - start);
  }
  const statements = ((await statementsSoFar(server)) - before) / rounds;
  const figure = {
    server: serverName,
    database,
    call: name,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    statements,
  };
  log(
    `${serverName}, ${database}: ${name}: p50 ${figure.p50.toFixed(1)} ms, p99 ${figure.p99.toFixed(1)} ms, ${statements.toFixed(1)} statements per call`,
  );
  return figure;
}

async function benchDatabase(
  database: BenchDatabase,
  figures: Figure[],
  serverName: string,
  mainScript?: string,
): Promise<void> {
  log(`\n${serverName}, ${database.label}: starting the server…`);
  const server = await startServer({
    name: `${serverName} ${database.label}`,
    database,
    adminPassword: randomBytes(12).toString('base64url'),
    ...(mainScript ? { mainScript } : {}),
  });
  const label = [serverName, database.label] as const;
  try {
    const rest = new RestClient(server);
    await rest.signIn();
    const serviceId = await rest.createService('bench-entry-writes');
    const versionId = await rest.createVersion(serviceId, '1.0.0');
    const importUrl = `/api/configversions/${serviceId}/${versionId}/import?format=json`;
    const file = (round: number) =>
      Object.fromEntries(Array.from({ length: IMPORT_KEYS }, (_, i) => [`Bench:Key${i}`, `r${round}-${i}`]));
    const importOnce = async (round: number, createMissing = false) => {
      const body = file(round);
      const plan = await rest.call<{ basedOn: string; changes: unknown[] }>(
        'POST',
        `${importUrl}&dryRun=true${createMissing ? '&createMissing=true' : ''}`,
        body,
      );
      await rest.call(
        'POST',
        `${importUrl}&dryRun=false${createMissing ? '&createMissing=true' : ''}&basedOn=${encodeURIComponent(plan.basedOn)}`,
        body,
      );
    };
    // The version's 5,000 keys, made by one import.
    await importOnce(-2, true);
    const entries = await rest.call<Array<{ id: string; key: string; generation: number; rawValue: string }>>(
      'GET',
      `/api/configentries/${serviceId}/${versionId}`,
    );
    if (entries.length !== IMPORT_KEYS) throw new Error(`expected ${IMPORT_KEYS} entries, got ${entries.length}`);
    const batch = entries.slice(0, BATCH);
    const generations = new Map(batch.map((e) => [e.id, e.generation]));

    figures.push(
      await measure(server, label, `batch set of ${BATCH} values`, ROUNDS, async (round) => {
        const updated = await rest.call<Array<{ id: string; generation: number }>>(
          'PUT',
          `/api/configentries/${serviceId}/${versionId}/set`,
          batch.map((e) => ({ id: e.id, rawValue: `b${round}`, generation: generations.get(e.id) })),
        );
        if (updated.length !== BATCH) throw new Error(`the batch set answered ${updated.length} entries`);
        for (const u of updated) generations.set(u.id, u.generation);
      }),
    );
    figures.push(
      await measure(
        server,
        label,
        `import of ${IMPORT_KEYS} keys (dry run + apply)`,
        Math.max(3, Math.ceil(ROUNDS / 3)),
        (round) => importOnce(round),
      ),
    );
    const after = await rest.call<Array<{ key: string; rawValue: string }>>(
      'GET',
      `/api/configentries/${serviceId}/${versionId}`,
    );
    const last = Math.max(3, Math.ceil(ROUNDS / 3)) - 1;
    const wrong = after.filter((e) => e.rawValue !== `r${last}-${e.key.slice('Bench:Key'.length)}`);
    if (wrong.length > 0) throw new Error(`${wrong.length} keys do not hold the last import's value`);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  log(`Large writes: ${ROUNDS} batch sets of ${BATCH} values, imports of ${IMPORT_KEYS} keys\n${machine()}`);
  const figures: Figure[] = [];
  const servers: Array<[string, string | undefined]> = [
    ...(BASELINE ? ([['baseline', BASELINE]] as Array<[string, string]>) : []),
    ['this checkout', undefined],
  ];
  const postgres = postgresAdminUrl();
  if (!postgres) log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  for (const [name, main] of servers) {
    await benchDatabase(sqliteDatabase(), figures, name, main);
    if (postgres) await benchDatabase(await postgresDatabase(postgres), figures, name, main);
  }
  log(
    `\n${markdownTable(
      ['server', 'database', 'call', 'p50 ms', 'p99 ms', 'SQL statements per call'],
      figures.map((f) => [f.server, f.database, f.call, fixed(f.p50), fixed(f.p99), fixed(f.statements, 0)]),
      3,
    )}`,
  );
  await runCleanups();
}

runMain(main);
