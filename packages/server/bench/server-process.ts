import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** A database the server under test runs on, and how to remove it afterwards. */
export interface BenchDatabase {
  readonly name: 'sqlite' | 'postgres';
  /** `--Database:…` arguments for the server. */
  readonly args: readonly string[];
  /** What the table calls it. */
  readonly label: string;
  drop(): Promise<void>;
}

/** A SQLite file database (WAL) in a fresh temporary folder. */
export function sqliteDatabase(): BenchDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-bench-sqlite-'));
  return {
    name: 'sqlite',
    label: 'SQLite (file, WAL)',
    args: [`--Database:DataDir=${dir}`],
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh PostgreSQL database on the server that `url` points at. */
export async function postgresDatabase(url: string): Promise<BenchDatabase> {
  const name = `rc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const version = await admin.query<{ server_version: string }>('SHOW server_version');
    const target = new URL(url);
    target.pathname = `/${name}`;
    return {
      name: 'postgres',
      label: `PostgreSQL ${version.rows[0]?.server_version.split(' ')[0] ?? ''}`.trim(),
      args: [`--Database:Url=${target.toString()}`],
      async drop() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
      },
    };
  } finally {
    await admin.end();
  }
}

async function freePort(): Promise<number> {
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
  readonly baseUrl: string;
  readonly adminPassword: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the real server (`node --import tsx src/main.ts`, as `npm run dev` does without the watch) in a child process on a free loopback
 * port, from an empty working folder so no appsettings.json or stray environment variable of
 * ours changes its configuration, and waits until /healthz answers.
 */
export async function startServerProcess(database: BenchDatabase): Promise<ServerProcess> {
  const port = await freePort();
  const cwd = mkdtempSync(path.join(tmpdir(), 'rc-bench-cwd-'));
  const adminPassword = randomBytes(12).toString('base64url');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.includes('__')));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      // Workspace packages from their TypeScript sources, as `npm run dev` runs them.
      '--conditions=@realtime-config/source',
      '--import',
      TSX,
      MAIN,
      `--Server:Port=${port}`,
      '--Server:Host=127.0.0.1',
      '--Authentication:Provider=Local',
      `--Authentication:Local:DefaultAdminPassword=${adminPassword}`,
      '--Logging:Level=warn',
      ...database.args,
    ],
    { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(cwd, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited with code ${child.exitCode} during start-up:\n${output}`);
    }
    try {
      const res = await request(`${baseUrl}/healthz`);
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer /healthz within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl, adminPassword, pid: child.pid, stop };
}
