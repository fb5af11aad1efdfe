/**
 * Batch value set benchmark: requests per second, entries per second and latency of
 * `PUT /api/configentries/{s}/{v}/set` through the real HTTP path, against a server in a separate
 * process, on SQLite and (when BENCH_DATABASE_URL or TEST_DATABASE_URL is set) PostgreSQL.
 *
 *   npm run bench                       # SQLite only
 *   TEST_DATABASE_URL=postgres://… npm run bench
 *
 * BENCH_SECONDS sets the measured seconds per scenario (default 10); each scenario first warms up
 * for BENCH_WARMUP_SECONDS (default 1). BENCH_SCENARIOS picks clients × items per batch (default
 * "1x1,16x1,1x10,16x10"). Prints the figures; asserts nothing about them.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { request } from 'undici';
import { percentile, runBatchSetLoad, type OwnedEntry } from './batch-set-load.js';
import { log, machine, runCleanups, runMain } from './realtime/common.js';
import {
  postgresAdminUrl,
  postgresDatabase,
  sqliteDatabase,
  startServer,
  type BenchDatabase,
  type ServerProcess,
} from './realtime/server.js';

const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const POSTGRES_URL = postgresAdminUrl();
const ADMIN = 'admin';

/** Clients × entries per batch (BENCH_SCENARIOS, e.g. "1x1,16x1"); every client owns distinct entries, so nothing conflicts. */
const SCENARIOS: ReadonlyArray<{ clients: number; batch: number }> = (
  process.env.BENCH_SCENARIOS || '1x1,16x1,1x10,16x10'
)
  .split(',')
  .map((s) => {
    const [clients, batch] = s.trim().split('x').map(Number);
    if (!clients || !batch || clients < 1 || batch < 1) throw new Error(`BENCH_SCENARIOS: "${s}" is not CLIENTSxITEMS`);
    return { clients, batch };
  });
const ENTRY_COUNT = Math.max(100, ...SCENARIOS.map((s) => s.clients * s.batch));

interface Row {
  database: string;
  clients: number;
  batch: number;
  requestsPerSecond: number;
  entriesPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

async function api<T>(
  server: ServerProcess,
  cookie: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await request(`${server.baseUrl}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as T;
}

async function signIn(server: ServerProcess): Promise<string> {
  const res = await request(`${server.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN, password: server.adminPassword }),
  });
  await res.body.dump();
  const setCookie = res.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (res.statusCode !== 200 || !first) throw new Error(`sign-in answered ${res.statusCode}`);
  return first.split(';')[0] ?? '';
}

/** A service with one version holding ENTRY_COUNT Number entries. */
async function prepare(server: ServerProcess, cookie: string) {
  const service = await api<{ id: string }>(server, cookie, 'POST', '/api/services', { name: 'bench' });
  const version = await api<{ id: string }>(server, cookie, 'POST', `/api/configversions/${service.id}`, {
    versionLabel: '1.0.0',
  });
  const entries: OwnedEntry[] = [];
  for (let i = 0; i < ENTRY_COUNT; i++) {
    const key = `Bench:Value${String(i).padStart(3, '0')}`;
    const entry = await api<{ id: string; generation: number }>(
      server,
      cookie,
      'POST',
      `/api/configentries/${service.id}/${version.id}`,
      {
        key,
        valueType: 6,
        rawValue: '0',
      },
    );
    entries.push({ id: entry.id, generation: entry.generation });
  }
  return { serviceId: service.id, versionId: version.id, entries };
}

async function benchDatabase(database: BenchDatabase, rows: Row[]): Promise<void> {
  log(`\n${database.label}: starting the server…`);
  // The built server (packages/server/dist), like the realtime benchmarks; BENCH_SERVER=source runs the sources.
  const server = await startServer({
    name: database.label,
    database,
    adminPassword: randomBytes(12).toString('base64url'),
  });
  try {
    const cookie = await signIn(server);
    const { serviceId, versionId, entries } = await prepare(server, cookie);
    log(`${database.label}: server pid ${server.pid}, ${entries.length} Number entries ready`);
    for (const { clients, batch } of SCENARIOS) {
      const entriesPerClient = Array.from({ length: clients }, (_, c) => entries.slice(c * batch, (c + 1) * batch));
      const result = await runBatchSetLoad({
        baseUrl: server.baseUrl,
        cookie,
        serviceId,
        versionId,
        entriesPerClient,
        warmUpMs: WARM_UP_SECONDS * 1000,
        measureMs: MEASURE_SECONDS * 1000,
      });
      const row: Row = {
        database: database.label,
        clients,
        batch,
        requestsPerSecond: result.requests / result.seconds,
        entriesPerSecond: result.entries / result.seconds,
        p50: percentile(result.latenciesMs, 0.5),
        p99: percentile(result.latenciesMs, 0.99),
        errors: result.errors,
        requests: result.requests,
      };
      rows.push(row);
      log(
        `${database.label}: ${clients} client(s) × ${batch} item(s): ${row.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, ${row.errors} errors`,
      );
    }
    // Every value set must have landed: the stored generations are the ones the clients last saw.
    const stored = await api<Array<{ id: string; generation: number }>>(
      server,
      cookie,
      'GET',
      `/api/configentries/${serviceId}/${versionId}`,
    );
    const mismatched = stored.filter((s) => entries.find((e) => e.id === s.id)?.generation !== s.generation);
    if (mismatched.length > 0) throw new Error(`${mismatched.length} entries have generations the clients did not see`);
  } finally {
    await server.stop();
  }
}

function table(rows: readonly Row[]): string {
  const header = ['database', 'clients', 'items/batch', 'requests/s', 'entries/s', 'p50 ms', 'p99 ms', 'errors'];
  const lines = rows.map((r) => [
    r.database,
    String(r.clients),
    String(r.batch),
    r.requestsPerSecond.toFixed(0),
    r.entriesPerSecond.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    `${r.errors}/${r.requests}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const numeric = (i: number) => i > 0;
  const format = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}

async function main(): Promise<void> {
  log(
    `Batch value set benchmark: ${MEASURE_SECONDS} s per scenario after ${WARM_UP_SECONDS} s of warm-up\n${machine()}`,
  );
  log(
    `Load average at the start (1/5/15 min): ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const rows: Row[] = [];

  await benchDatabase(sqliteDatabase(), rows);

  let skipped = '';
  if (POSTGRES_URL) {
    await benchDatabase(await postgresDatabase(POSTGRES_URL), rows);
  } else {
    skipped = 'PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to include it.';
    log(`\n${skipped}`);
  }
  await runCleanups();

  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  process.stdout.write(
    `\n${machine()}\nLoad average at the end (1/5/15 min): ${load}\nMeasured ${MEASURE_SECONDS} s per scenario after ${WARM_UP_SECONDS} s of warm-up.\n\n${table(rows)}\n`,
  );
  if (skipped) process.stdout.write(`\n${skipped}\n`);
}

runMain(main);
