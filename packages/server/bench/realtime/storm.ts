/**
 * Reconnect storm: the instance holding every stream is SIGKILLed, a change is made through another
 * instance while it is down, and it is started again on the same port. Do the clients come back,
 * when, and does each get the missed change exactly once? Once with the SDK's reconnect rule
 * (`nextDelay`: ± 20 %, then full jitter) and once with a fixed wait, for the spread of reconnects.
 *
 *   node --import tsx packages/server/bench/realtime/storm.ts [--subscribers 2000] [--workers 2] [--interval 2000]
 *
 * Two instances on one PostgreSQL database (BENCH_DATABASE_URL or TEST_DATABASE_URL): W takes the
 * REST writes, A holds the streams. Subscribers are raw HTTP/2 StartSubscribe streams, one connection
 * each, in worker processes (storm-worker.ts), resuming from the last change seen. Prints the figures;
 * asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, runMain, sleep } from './common.js';
import { postgresAdminUrl, postgresDatabase, RestClient, startServer, type ServerProcess } from './server.js';
import type { StormStart, StormWorkerMessage } from './storm-worker.js';
import { WorkerProcess } from './worker-process.js';

const KEY = 'Bench:Seq';
const MAX_CHANGES = 4;
const BUCKET_MS = 500;

interface StormResult {
  readonly policy: StormStart['policy'];
  readonly subscribers: number;
  /** From A answering /readyz again until every subscriber had the change made while it was down. */
  readonly catchUpMs: number;
  readonly missed: number;
  readonly twice: number;
  /** Streams reopened after the restart, by half second after A was ready. */
  readonly histogram: Map<number, number>;
  readonly attemptsWhileDown: number;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = nowMs() + timeoutMs;
  while (!(await check())) {
    if (nowMs() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function storm(
  policy: StormStart['policy'],
  options: { subscribers: number; workers: number; intervalMs: number },
): Promise<StormResult> {
  const database = await postgresDatabase(postgresAdminUrl());
  const adminPassword = randomBytes(12).toString('base64url');
  const writer = await startServer({ name: 'W', database, adminPassword });
  let holder: ServerProcess = await startServer({ name: 'A', database, adminPassword });
  const rest = new RestClient(writer);
  await rest.signIn();
  const serviceId = await rest.createService(`storm-${randomBytes(4).toString('hex')}`);
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

  const per = Math.ceil(options.subscribers / options.workers);
  const workers = Array.from(
    { length: options.workers },
    (_, k) => new WorkerProcess<StormWorkerMessage>(`storm-${k}`, './storm-worker.ts', { nodeFlags: ['--expose-gc'] }),
  );
  const afterTimestampUs = Date.now() * 1000;
  await Promise.all(
    workers.map((w) => {
      const ready = w.waitFor('ready', 180_000);
      w.send({
        type: 'start',
        url: holder.baseUrl,
        serviceId,
        versionId,
        afterTimestampUs,
        key: KEY,
        subscribers: per,
        maxChanges: MAX_CHANGES,
        policy,
        intervalMs: options.intervalMs,
      } satisfies StormStart);
      return ready;
    }),
  );
  const have = async (seq: number): Promise<number> => {
    let n = 0;
    for (const w of workers) {
      const answer = w.waitFor('count', 30_000);
      w.send({ type: 'count', seq });
      n += (await answer).have;
    }
    return n;
  };
  const all = per * options.workers;
  log(`${policy}: ${all} streams open on A (pid ${holder.pid}); change 1 through W`);
  await set(1);
  await until('change 1 everywhere', 60_000, async () => (await have(1)) === all);

  const downAt = nowMs();
  await holder.kill();
  await set(2); // while A is down: every client must get it once it is back
  holder = await startServer({ name: 'A', database, adminPassword, port: holder.port });
  const upAt = nowMs();
  log(`${policy}: A killed and ready again after ${fixed(upAt - downAt, 0)} ms`);
  await until('change 2 everywhere', 180_000, async () => (await have(2)) === all);
  const catchUpMs = nowMs() - upAt;
  await sleep(options.intervalMs * 2); // anything sent twice would have arrived by now

  const histogram = new Map<number, number>();
  let missed = 0;
  let twice = 0;
  let attemptsWhileDown = 0;
  for (const w of workers) {
    const answer = w.waitFor('report', 60_000);
    w.send({ type: 'report' });
    const report = await answer;
    for (const at of report.opens) {
      const bucket = Math.max(0, Math.floor((at - upAt) / BUCKET_MS) * BUCKET_MS); // a stream may open just before /readyz is seen
      histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
    }
    for (const at of report.attempts) if (at < upAt) attemptsWhileDown++;
    for (let i = 0; i < per; i++) {
      const got = report.counts[i * MAX_CHANGES + 2] ?? 0;
      if (got === 0) missed++;
      if (got > 1) twice++;
    }
  }
  await Promise.all(workers.map((w) => w.stop()));
  await holder.stop();
  await writer.stop();
  return { policy, subscribers: all, catchUpMs, missed, twice, histogram, attemptsWhileDown };
}

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const subscribers = Number(args.get('subscribers') ?? 2000);
  const workers = Number(args.get('workers') ?? 2);
  const intervalMs = Number(args.get('interval') ?? 2000);
  if (!postgresAdminUrl()) throw new Error('storm.ts needs BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL)');
  log(
    `Reconnect storm: ${subscribers} subscribers in ${workers} processes, pollingInterval ${intervalMs} ms\n${machine()}`,
  );
  const results: StormResult[] = [];
  for (const policy of ['fixed', 'jitter'] as const)
    results.push(await storm(policy, { subscribers, workers, intervalMs }));

  const buckets = [...new Set(results.flatMap((r) => [...r.histogram.keys()]))].sort((a, b) => a - b);
  const bound = intervalMs * 1.2 + 5000;
  process.stdout.write(
    `\n${machine()}\n\n` +
      markdownTable(
        [
          'wait',
          'streams',
          'all caught up after A was ready, ms',
          `bound (interval × 1.2 + 5 s)`,
          'missed',
          'twice',
          'attempts while A was down',
        ],
        results.map((r) => [
          r.policy === 'jitter' ? 'nextDelay (± 20 %, then full jitter)' : 'fixed pollingInterval',
          String(r.subscribers),
          fixed(r.catchUpMs, 0),
          fixed(bound, 0),
          String(r.missed),
          String(r.twice),
          String(r.attemptsWhileDown),
        ]),
      ) +
      `\n\nStreams reopened per ${BUCKET_MS} ms after A was ready again:\n\n` +
      markdownTable(
        ['ms after A was ready', ...results.map((r) => r.policy)],
        buckets.map((b) => [`${b}–${b + BUCKET_MS}`, ...results.map((r) => String(r.histogram.get(b) ?? 0))]),
      ) +
      '\n',
  );
});
