import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADMIN_PASSWORD } from './test-server.js';

const mainTs = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
// The child runs in a temporary folder, so the TypeScript loader is given by absolute URL.
const tsxLoader = pathToFileURL(
  path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

/** Keeps the end of a child's output for failure messages; request logs would otherwise pile up. */
const OUTPUT_TAIL_CHARS = 64 * 1024;

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The command and arguments that run main.ts with tsx; with `umask`, through a shell that sets it
 * first, so the tests' own process keeps its umask.
 */
function serverCommandLine(args: readonly string[], umask: number | undefined): [string, string[]] {
  const node = [process.execPath, '--conditions=@realtime-config/source', '--import', tsxLoader, mainTs, ...args];
  if (umask === undefined) return [node[0] as string, node.slice(1)];
  return ['/bin/sh', ['-c', `umask ${umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`, ...node]];
}

export interface ServerCommandOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The file mode creation mask of the process (e.g. 0 for files readable by everyone). */
  readonly umask?: number;
  /** SIGKILL the process after this long (code null): for a server expected to exit on its own. */
  readonly timeoutMs?: number;
}

/**
 * Runs the server's command line (main.ts with tsx, as `realtime-config-server …`) to its end:
 * `migrate`, `backup`, `restore`, `check-config`, or serving until it exits (with `timeoutMs`).
 * Only PATH and the given variables are set.
 */
export async function runServerCommand(
  args: readonly string[],
  options: ServerCommandOptions = {},
): Promise<CommandResult> {
  const cwd = options.cwd ?? mkdtempSync(path.join(tmpdir(), 'rc-cmd-'));
  const [command, commandArgs] = serverCommandLine(args, options.umask);
  const child = spawn(command, commandArgs, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  if (options.cwd === undefined) rmSync(cwd, { recursive: true, force: true });
  return { code, stdout, stderr };
}

/** A port that was free a moment ago (the OS picks it), for a server that must keep its port across restarts. */
export async function findFreePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The real server (main.ts) running as a child process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly baseUrl: string;
  /** The last part of what the process wrote to stdout and stderr. */
  output(): string;
  /** SIGKILL: no shutdown, no goodbye; resolves once the process is gone. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** SIGKILLs every server process started by this module that still runs; for afterEach/afterAll. */
export async function killServerProcesses(): Promise<void> {
  const children = [...running];
  running.clear();
  await Promise.all(children.map((child) => killChild(child)));
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/**
 * The arguments of a server process as the tests run it on a fixed port: loopback, the Local
 * provider with the tests' admin password, info logs (startServerProcess waits for "listening
 * on"), gRPC without credentials (as the shipped appsettings.json); then `extra` (the database, …).
 */
export function serverProcessArgs(port: number, extra: readonly string[] = []): string[] {
  return [
    `--Server:Port=${port}`,
    '--Server:Host=127.0.0.1',
    '--Authentication:Provider=Local',
    `--Authentication:Local:DefaultAdminPassword=${ADMIN_PASSWORD}`,
    '--Logging:Level=info',
    '--Grpc:RequireAuthentication=false',
    ...extra,
  ];
}

export interface ServerProcessOptions {
  /** `--Section:Key=value` arguments; must include `--Server:Port` and `--Server:Host=127.0.0.1`. */
  readonly args: readonly string[];
  /** Working directory (where appsettings.json would be looked up); a fresh empty folder by default. */
  readonly cwd?: string;
  /** The file mode creation mask of the process (e.g. 0 for files readable by everyone). */
  readonly umask?: number;
  readonly startTimeoutMs?: number;
  /**
   * Resolve once the server listens, or once it is also ready (connected to its database).
   * @default 'ready'
   */
  readonly until?: 'listening' | 'ready';
}

/**
 * Starts main.ts with tsx and resolves once it logs "listening on http://host:port" and, unless
 * `until` says otherwise, that it is ready (so the log level must be info or lower). Rejects with
 * the process output when it exits or times out first.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const [command, commandArgs] = serverCommandLine(options.args, options.umask);
  const child = spawn(command, commandArgs, {
    cwd: options.cwd ?? mkdtempSync(path.join(tmpdir(), 'rc-proc-')),
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));

  let output = '';
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
    if (output.length > OUTPUT_TAIL_CHARS * 2) output = output.slice(-OUTPUT_TAIL_CHARS);
  };
  child.stderr?.on('data', append);
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      void killChild(child);
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      append(chunk);
      seen += chunk.toString();
      const match = /listening on https?:\/\/[\d.]+:(\d+)/.exec(seen);
      const ready =
        (options.until ?? 'ready') === 'listening' || seen.includes('"msg":"ready: connected to the database"');
      if (match && ready) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      } else if (!match && seen.length > OUTPUT_TAIL_CHARS) seen = seen.slice(-1024);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  });
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    kill: () => killChild(child),
  };
}
