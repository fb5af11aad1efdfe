/**
 * Shared pieces of the realtime benchmarks: one clock for every process, statistics, tables, clean-up.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Milliseconds (µs resolution) on CLOCK_MONOTONIC, which Linux shares between processes: a receipt
 * time taken in a worker and a REST answer time taken in the driver are directly comparable.
 */
export function nowMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Nearest-rank percentile of unsorted samples (NaN when there are none). */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

export function mean(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] as number;
  return samples.length === 0 ? Number.NaN : sum / samples.length;
}

export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** A Markdown table with numeric columns right-aligned. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  numericFrom = 1,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = (i: number) => i >= numericFrom;
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function machine(): string {
  const cpus = os.cpus();
  const free = spawnSync('free', ['-h'], { encoding: 'utf8' }).stdout?.split('\n')[1]?.trim() ?? '';
  return [
    `CPU: ${cpus[0]?.model.trim() ?? 'unknown'}, nproc ${os.availableParallelism()}`,
    `Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB${free ? ` (free -h: ${free.replace(/\s+/g, ' ')})` : ''}`,
    `OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `Node.js: ${process.version}`,
    `Load average (1/5/15 min): ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ].join('\n');
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim() || 100);

/** User + system CPU time of a process in milliseconds, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / CLOCK_TICKS;
}

// ---- clean-up -------------------------------------------------------------------------------

type Cleanup = { run: () => Promise<void>; killNow?: () => void };
const cleanups: Cleanup[] = [];

/**
 * Registers something to undo at the end, even on failure or Ctrl-C: `run` is awaited in reverse
 * order; `killNow` (synchronous) is what still happens when the process exits abruptly.
 */
export function onCleanup(run: () => Promise<void>, killNow?: () => void): () => void {
  const entry: Cleanup = { run, killNow };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

export async function runCleanups(): Promise<void> {
  for (const entry of cleanups.splice(0).reverse()) {
    await entry.run().catch((error: unknown) => log(`clean-up failed: ${String(error)}`));
  }
}

let installed = false;
/** Ctrl-C / SIGTERM run the clean-ups; a hard exit still kills the child processes. */
export function installCleanupHandlers(): void {
  if (installed) return;
  installed = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      log(`\n${signal}: stopping servers and workers, removing the benchmark databases…`);
      void runCleanups().then(() => process.exit(130));
    });
  }
  process.once('exit', () => {
    for (const entry of cleanups) entry.killNow?.();
  });
}

/** Runs `main` and exits: 0 when it succeeds, 1 (after the clean-ups) when it throws. */
export function runMain(main: () => Promise<void>): void {
  installCleanupHandlers();
  main().then(
    async () => {
      await runCleanups();
      process.exit(0);
    },
    async (error: unknown) => {
      log(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await runCleanups();
      process.exit(1);
    },
  );
}

/** `--name=value` / `--name value` command-line options. */
export function parseArgs(argv: readonly string[]): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) options.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < argv.length && !(argv[i + 1] ?? '').startsWith('--')) options.set(arg.slice(2), argv[++i] ?? '');
    else options.set(arg.slice(2), 'true');
  }
  return options;
}
