/**
 * The server under test, in processes of its own: the built JavaScript (packages/server/dist) so
 * tsx's transpiler is not part of its memory and CPU figures, on a fresh SQLite folder or a fresh
 * PostgreSQL database that is dropped afterwards. Also a small REST client and a /metrics reader.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Client, request } from 'undici';
import { log, onCleanup } from './common.js';

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REPO_ROOT = path.resolve(SERVER_ROOT, '../..');
const DIST_MAIN = path.join(SERVER_ROOT, 'dist/server/src/main.js');
const SOURCE_MAIN = path.join(SERVER_ROOT, 'src/main.ts');
export const TSX = import.meta.resolve('tsx');

/**
 * Preloaded into the server (a data: URL, nothing on disk):
 * - the process ends itself when its parent goes away (its stdin pipe closes), so a benchmark killed
 *   with SIGKILL leaves no server behind;
 * - SIGWINCH runs a full garbage collection (the server runs with --expose-gc) and prints
 *   process.memoryUsage() on stderr, so heap figures are of live objects, not of garbage.
 * Costs one pipe handle and one signal handler.
 */
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    'process.stdin.on("error",()=>{});',
    'process.stdin.on("end",()=>process.kill(process.pid,"SIGTERM"));',
    'process.stdin.resume();',
    'process.on("SIGWINCH",()=>{globalThis.gc();globalThis.gc();',
    'process.stderr.write("BENCH_MEMORY "+JSON.stringify(process.memoryUsage())+"\\n");});',
  ].join(''),
)}`;

/** `bash -c 'ulimit -n <hard>; exec …'`: one stream per connection needs more descriptors than the usual 1024. */
export function withHighFileLimit(command: string, args: readonly string[]): [string, string[]] {
  return ['bash', ['-c', 'ulimit -n "$(ulimit -Hn)" && exec "$0" "$@"', command, ...args]];
}

export interface BenchDatabase {
  readonly kind: 'sqlite' | 'postgres';
  readonly label: string;
  /** `--Database:…` arguments for every instance. */
  readonly args: readonly string[];
}

export function sqliteDatabase(): BenchDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-bench-rt-sqlite-'));
  onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  return { kind: 'sqlite', label: 'SQLite', args: [`--Database:DataDir=${dir}`] };
}

export function postgresAdminUrl(): string {
  return process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || '';
}

/** A fresh database `rc_bench_<random>` on the server of the admin URL, dropped at clean-up. */
export async function postgresDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `rc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let version = '';
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const result = await admin.query<{ server_version: string }>('SHOW server_version');
    version = result.rows[0]?.server_version.split(' ')[0] ?? '';
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  return { kind: 'postgres', label: `PostgreSQL ${version}`.trim(), args: [`--Database:Url=${target.toString()}`] };
}

let built = false;
/**
 * Builds the protocol and the server once per benchmark run (tsc is incremental: about 10 s), so
 * the measured JavaScript is that of the current sources. BENCH_SKIP_BUILD=1 skips it.
 */
export function ensureBuilt(): void {
  if (built || serverMode() === 'source' || process.env.BENCH_SKIP_BUILD === '1') return;
  built = true;
  log('npm run build (BENCH_SKIP_BUILD=1 skips it)…');
  const result = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm run build failed (${result.status ?? result.signal})`);
}

/** BENCH_SERVER=source runs src/main.ts through tsx instead of the build. */
function serverMode(): 'dist' | 'source' {
  return process.env.BENCH_SERVER === 'source' ? 'source' : 'dist';
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  readonly name: string;
  readonly baseUrl: string;
  readonly port: number;
  readonly pid: number;
  readonly adminPassword: string;
  /** The last 20,000 characters the server wrote. */
  output(): string;
  /** process.memoryUsage() inside the server right after a full garbage collection. */
  memoryAfterGc(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
  /** SIGKILL: no shutdown, no goodbye to its clients; resolves once the process is gone. */
  kill(): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly database: BenchDatabase;
  /** Same for every instance on one database (the seeded admin's password). */
  readonly adminPassword: string;
  /** Extra node flags, e.g. --cpu-prof; BENCH_SERVER_NODE_FLAGS adds more. */
  readonly nodeFlags?: readonly string[];
  /** Extra `--Section:Key=value` settings. */
  readonly settings?: readonly string[];
  /** A port to listen on (a restart on the port its clients know); a free one by default. */
  readonly port?: number;
  /** Another build's `dist/server/src/main.js` (a baseline checkout), run as it is; this build's by default. */
  readonly mainScript?: string;
}

/** Starts one instance on a free loopback port and waits until it is ready (/readyz: connected to its database). */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  if (!options.mainScript) ensureBuilt();
  const port = options.port ?? (await freePort());
  const cwd = mkdtempSync(path.join(tmpdir(), 'rc-bench-rt-cwd-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.includes('__')));
  const extraFlags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const entry = options.mainScript
    ? [options.mainScript]
    : serverMode() === 'source'
      ? ['--conditions=@realtime-config/source', '--import', TSX, SOURCE_MAIN]
      : [DIST_MAIN];
  const [command, args] = withHighFileLimit(process.execPath, [
    '--expose-gc',
    '--import',
    PRELOAD,
    ...(options.nodeFlags ?? []),
    ...extraFlags,
    ...entry,
    `--Server:Port=${port}`,
    '--Server:Host=127.0.0.1',
    '--Authentication:Provider=Local',
    `--Authentication:Local:DefaultAdminPassword=${options.adminPassword}`,
    '--Logging:Level=warn',
    // The load generators send no credentials (the server's default is to require them).
    '--Grpc:RequireAuthentication=false',
    // A load generator holds a whole fleet's streams from one loopback address: the per-address
    // stream limit (2,000 by default) is for clients, not for it. A baseline build from before
    // that setting would refuse the key: the benches that run one open few streams.
    ...(options.mainScript ? [] : ['--Server:MaxStreamsPerAddress=0']),
    ...options.database.args,
    ...(options.settings ?? []),
  ]);
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let stderrLine = '';
  const memoryWaiters: Array<(usage: NodeJS.MemoryUsage) => void> = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (stderrLine + chunk.toString()).split('\n');
    stderrLine = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('BENCH_MEMORY ')) memoryWaiters.shift()?.(JSON.parse(line.slice(13)) as NodeJS.MemoryUsage);
    }
  });
  const memoryAfterGc = (): Promise<NodeJS.MemoryUsage> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server ${options.name}: no memory report within 60 s`)), 60_000);
      memoryWaiters.push((usage) => {
        clearTimeout(timer);
        resolve(usage);
      });
      child.kill('SIGWINCH');
    });
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;

  let stopped = false;
  let killed = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (running()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  const unregister = onCleanup(stop, () => {
    if (running()) child.kill('SIGKILL');
  });

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running()) {
      await stop();
      unregister();
      throw new Error(`server ${options.name} exited during start-up:\n${output}`);
    }
    try {
      const res = await request(`${baseUrl}/readyz`);
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      unregister();
      throw new Error(`server ${options.name} was not ready (/readyz) within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Ready: a server that ends on its own from here on says why: its exit status and the end of what it wrote.
  child.once('exit', (code, signal) => {
    if (stopped || killed) return;
    log(`server ${options.name} exited (code ${code}, signal ${signal}); its last output:\n${output.slice(-5000)}`);
  });
  if (child.pid === undefined) throw new Error('no pid');
  return {
    name: options.name,
    baseUrl,
    port,
    pid: child.pid,
    adminPassword: options.adminPassword,
    output: () => output,
    memoryAfterGc,
    stop,
    async kill() {
      killed = true;
      if (running()) child.kill('SIGKILL');
      await exited;
      await stop();
    },
  };
}

/** The REST API of one instance over one keep-alive connection, signed in as the admin. */
export class RestClient {
  private readonly client: Client;
  private cookie = '';

  constructor(private readonly server: ServerProcess) {
    this.client = new Client(server.baseUrl, { keepAliveTimeout: 600_000, pipelining: 1 });
    onCleanup(() => this.client.close());
  }

  async signIn(): Promise<void> {
    const res = await this.client.request({
      path: '/auth/login',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: this.server.adminPassword }),
    });
    await res.body.dump();
    const setCookie = res.headers['set-cookie'];
    const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
    if (res.statusCode !== 200 || !first) throw new Error(`sign-in answered ${res.statusCode}`);
    this.cookie = first.split(';')[0] ?? '';
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const res = await this.client.request({
      path,
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
    return JSON.parse(text) as T;
  }

  async createService(name: string): Promise<string> {
    return (await this.call<{ id: string }>('POST', '/api/services', { name })).id;
  }

  async createVersion(serviceId: string, versionLabel: string): Promise<string> {
    return (await this.call<{ id: string }>('POST', `/api/configversions/${serviceId}`, { versionLabel })).id;
  }

  async createEntry(
    serviceId: string,
    versionId: string,
    key: string,
    rawValue: string,
  ): Promise<{ id: string; generation: number }> {
    return this.call('POST', `/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue });
  }
}

/** Selected samples of GET /metrics (no sign-in), by metric name (first sample of each). */
export async function scrapeMetrics(server: ServerProcess): Promise<Map<string, number>> {
  const res = await request(`${server.baseUrl}/metrics`);
  const text = await res.body.text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const name = `${match[1]}${match[2] ?? ''}`;
    values.set(name, Number(match[3]));
    if (!values.has(match[1] as string)) values.set(match[1] as string, Number(match[3]));
  }
  return values;
}

/**
 * One instance with an admin password of its own, and its REST API signed in as that admin: what
 * most scripts start with. `database` is a fresh SQLite folder unless given.
 */
export async function startSignedIn(
  options: Omit<StartOptions, 'adminPassword' | 'database'> & { readonly database?: BenchDatabase },
): Promise<{ server: ServerProcess; rest: RestClient }> {
  const server = await startServer({
    ...options,
    database: options.database ?? sqliteDatabase(),
    adminPassword: randomBytes(12).toString('base64url'),
  });
  const rest = new RestClient(server);
  await rest.signIn();
  return { server, rest };
}
