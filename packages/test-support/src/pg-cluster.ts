import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from './server-process.js';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries on this machine (Debian: /usr/lib/postgresql/<major>/bin). */
function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  try {
    const majors = readdirSync(root)
      .filter((d) => /^\d+$/.test(d))
      .sort((a, b) => Number(b) - Number(a));
    return majors.length > 0 ? path.join(root, majors[0]!, 'bin') : null;
  } catch {
    return null;
  }
}

export const pgBinaries = binDir();

/**
 * A PostgreSQL cluster owned by one test: its own data folder and port, so the test may restart,
 * stop or kill it (never the shared server on 5432). initdb refuses root, so as root the cluster
 * runs as the `postgres` system user.
 */
export interface PgCluster {
  readonly port: number;
  /** A database URL for the given database of this cluster (created by `createDatabase`). */
  url(database?: string): string;
  createDatabase(name: string): Promise<void>;
  /** pg_ctl restart -m fast: clients are disconnected, the server is back when this resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGKILL of the postmaster and every backend: a crash; `start` then runs crash recovery. */
  kill(): Promise<void>;
  /** pg_terminate_backend of every connection of the given application name (or of all but this one). */
  terminateBackends(applicationNamePrefix?: string): Promise<number>;
  /**
   * A hot standby of this cluster in a folder and on a port of its own: `pg_basebackup -R` (streaming
   * replication from this cluster, `primary_conninfo` written by the tool), as docs/regions.md says.
   */
  createStandby(): Promise<PgCluster>;
  /** `pg_ctl promote -w`: this standby becomes a primary; resolves once it takes writes. */
  promote(): Promise<void>;
  /** On a standby: pauses (or resumes) the replay of what it receives, as a lagging standby would. */
  setReplayPaused(paused: boolean): Promise<void>;
  destroy(): Promise<void>;
}

/** A folder of our own, owned by the user the cluster runs as. */
function clusterFolder(): { dir: string; data: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-pgcluster-'));
  if (userInfo().uid === 0) chownSync(dir, pgUid(), pgGid());
  return { dir, data: path.join(dir, 'data') };
}

/** Runs a PostgreSQL tool; initdb refuses root, so as root every tool runs as `postgres`. */
function pgRun(tool: string, args: string[]) {
  const bin = pgBinaries;
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin');
  return userInfo().uid === 0
    ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
    : run(path.join(bin, tool), args);
}

export async function createPgCluster(): Promise<PgCluster> {
  if (!pgBinaries) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin');
  const { dir, data } = clusterFolder();
  await pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  return startCluster(dir, data);
}

/** Starts the cluster of `data` on a free port and returns its handle. */
async function startCluster(dir: string, data: string): Promise<PgCluster> {
  const port = await findFreePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c max_connections=100',
  ].join(' ');
  const start = async () => {
    await pgRun('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  };
  const stop = async () => {
    await pgRun('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();

  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url(), application_name: 'pg-cluster-admin' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  return {
    port,
    url,
    createDatabase: (name) => admin(async (c) => void (await c.query(`CREATE DATABASE ${name}`))),
    async restart() {
      // -l as for start: the server must not inherit pg_ctl's output pipes, or pg_ctl never "ends".
      await pgRun('pg_ctl', [
        '-D',
        data,
        '-o',
        options,
        '-l',
        path.join(dir, 'log'),
        '-m',
        'fast',
        '-w',
        '-t',
        '60',
        'restart',
      ]);
    },
    stop,
    start,
    async kill() {
      const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).catch(() => ({ stdout: '' }));
      const pids = [postmaster, ...stdout.split(/\s+/).filter(Boolean).map(Number)];
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      // Wait until every process of the cluster is gone, so the next start finds the port free.
      for (let i = 0; i < 200 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 25));
    },
    async createStandby() {
      const standby = clusterFolder();
      await pgRun('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'],
        ...['-D', standby.data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
      ]);
      return startCluster(standby.dir, standby.data);
    },
    async promote() {
      await pgRun('pg_ctl', ['-D', data, '-w', '-t', '60', 'promote']);
    },
    setReplayPaused: (paused) =>
      admin(
        async (c) => void (await c.query(paused ? 'select pg_wal_replay_pause()' : 'select pg_wal_replay_resume()')),
      ),
    terminateBackends: (prefix = 'realtime-config') =>
      admin(async (c) => {
        const result = await c.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where application_name like $1 and pid <> pg_backend_pid()`,
          [`${prefix}%`],
        );
        return result.rowCount ?? 0;
      }),
    async destroy() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pgUid(): number {
  return Number(/^postgres:[^:]*:(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'))?.[1] ?? 0);
}

function pgGid(): number {
  return Number(/^postgres:[^:]*:\d+:(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'))?.[1] ?? 0);
}
