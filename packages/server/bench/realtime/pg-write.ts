/**
 * PostgreSQL write benchmark: the REST set of one value with one client, and what each round trip of
 * its write transaction costs.
 *
 *   node --import tsx packages/server/bench/realtime/pg-write.ts [--sets 1000]
 *
 * Needs BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin URL; a database `rc_bench_<random>` is
 * created and dropped); skipped with a message without one. The server is the built JavaScript in its
 * own process. Statements per set are read from the server's `db_query_duration_seconds` counter
 * (every statement the app sends, the session lookup included), plus BEGIN and COMMIT, which the
 * driver sends without counting them. Round trip: `SELECT 1` on a connection of our own to the same
 * database; commit: an INSERT's COMMIT (waits for the WAL flush). Prints the figures; asserts nothing.
 */
import pg from 'pg';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, runMain } from './common.js';
import { figures, singleSetter, timeCalls } from './rest-timing.js';
import { postgresAdminUrl, postgresDatabase, scrapeMetrics, startSignedIn } from './server.js';

const QUERY_COUNT = 'db_query_duration_seconds_count';

/** Statements the server sent for its queries, as counted by its metrics. */
async function statementsCounted(server: Parameters<typeof scrapeMetrics>[0]): Promise<number> {
  const metrics = await scrapeMetrics(server);
  let total = 0;
  for (const [name, value] of metrics) if (name.startsWith(`${QUERY_COUNT}{`)) total += value;
  return total;
}

runMain(async () => {
  const adminUrl = postgresAdminUrl();
  if (!adminUrl) {
    log('PostgreSQL write benchmark skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const sets = Number(args.get('sets') ?? 1000);
  log(`PostgreSQL write benchmark: ${sets} sets of one value\n${machine()}`);
  const database = await postgresDatabase(adminUrl);
  const { server, rest } = await startSignedIn({ name: 'A', database });
  const { set } = await singleSetter(rest);
  let n = 0;
  const write = () => set(`w-${n++}`);
  await timeCalls(200, write); // warm-up

  const countedBefore = await statementsCounted(server);
  const backToBack = await timeCalls(sets, write);
  const countedAfter = await statementsCounted(server);
  const paused = await timeCalls(200, write, () => 20 + Math.random() * 20);
  // The metrics scrape between the two counts is itself a request without queries.
  const statementsPerSet = (countedAfter - countedBefore) / sets + 2;

  const direct = new pg.Client({ connectionString: database.args[0]?.split('=').slice(1).join('=') });
  await direct.connect();
  await timeCalls(200, async () => void (await direct.query('SELECT 1')));
  const roundTrip = await timeCalls(2000, async () => void (await direct.query('SELECT 1')));
  await direct.query('CREATE TABLE bench_probe (n integer)');
  const commitSamples: number[] = [];
  for (let i = 0; i < 500; i++) {
    await direct.query('BEGIN');
    await direct.query('INSERT INTO bench_probe (n) VALUES ($1)', [i]);
    const started = nowMs();
    await direct.query('COMMIT');
    commitSamples.push(nowMs() - started);
  }
  const commit = figures(commitSamples);
  await direct.end();
  await server.stop();

  const database_ms = (statementsPerSet - 1) * roundTrip.p50 + commit.p50;
  const table = markdownTable(
    ['figure', 'p50 ms', 'p99 ms'],
    [
      ['REST set of one value, one client, back to back', fixed(backToBack.p50, 2), fixed(backToBack.p99, 2)],
      ['the same with 20–40 ms pauses', fixed(paused.p50, 2), fixed(paused.p99, 2)],
      ['one round trip (`SELECT 1`, loopback)', fixed(roundTrip.p50, 3), fixed(roundTrip.p99, 3)],
      ['COMMIT of one INSERT (WAL flush)', fixed(commit.p50, 3), fixed(commit.p99, 3)],
    ],
  );
  process.stdout.write(
    `\n${machine()}\n${database.label}\n\n${table}\n\n` +
      `Statements per set: ${fixed(statementsPerSet, 1)} (session lookup and BEGIN/COMMIT included), each one round trip.\n` +
      `Round trips × ${fixed(roundTrip.p50, 3)} ms + the flushing COMMIT ≈ ${fixed(database_ms, 2)} ms of the ${fixed(backToBack.p50, 2)} ms p50;` +
      ` the rest (≈ ${fixed(backToBack.p50 - database_ms, 2)} ms) is HTTP, authentication, JSON and the server's own work.\n`,
  );
});
