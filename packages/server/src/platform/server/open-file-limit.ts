import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** RLIMIT_NOFILE of a process; `Infinity` stands for `unlimited`. */
export interface OpenFileLimit {
  readonly soft: number;
  readonly hard: number;
}

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

/** The limit assumed where it cannot be read (no `/proc`): the usual soft default of Linux and macOS shells. */
const ASSUMED_LIMIT = 1024;
/** Descriptors kept out of the connection cap at the least: database pool, SQLite and log files, static files, sockets being evicted. */
const MIN_HEADROOM = 128;
const HEADROOM_SHARE = 0.1;

function parseLimitValue(text: string): number {
  return text === 'unlimited' ? Infinity : Number(text);
}

/** Reads RLIMIT_NOFILE from `/proc/<pid>/limits`; null where there is no such file (not Linux) or it cannot be parsed. */
export function readOpenFileLimit(pid: number = process.pid): OpenFileLimit | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/limits`, 'utf8');
  } catch {
    return null;
  }
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!match?.[1] || !match[2]) return null;
  return { soft: parseLimitValue(match[1]), hard: parseLimitValue(match[2]) };
}

/**
 * Raises the soft open-file limit of a process to its hard limit, and returns the limit then in force.
 *
 * Node already does this for its own process when it starts (PlatformInit in node.cc), so for the
 * server this is a check with a fallback: it acts only when the soft limit is still below the hard
 * one (an embedder that opted out, a hard limit raised from outside while running). Node has no
 * binding for setrlimit(2), so the fallback runs `prlimit` of util-linux on our own pid: it calls
 * prlimit(2), which an unprivileged process may use on itself up to the hard limit. Where `prlimit`
 * is missing or fails, a warning is logged and the lower limit is kept: the connection cap derived
 * from it is then simply smaller.
 */
export function raiseOpenFileLimit(pid: number = process.pid, logger?: WarnLogger): OpenFileLimit | null {
  const limit = readOpenFileLimit(pid);
  if (!limit || limit.soft >= limit.hard) return limit;
  const hard = Number.isFinite(limit.hard) ? String(limit.hard) : 'unlimited';
  try {
    execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${hard}:${hard}`], { stdio: 'ignore', timeout: 5000 });
  } catch (err) {
    logger?.warn(
      { err, soft: limit.soft, hard: limit.hard },
      'could not raise the open-file limit to its hard limit (is prlimit of util-linux installed?)',
    );
    return limit;
  }
  return readOpenFileLimit(pid) ?? limit;
}

/**
 * Server:MaxConnections when it is not set: the open-file limit less a headroom for everything else
 * the process opens (10 %, at least 128), so that a new connection can always be accepted, and then
 * evict an idle one, before the descriptors run out.
 */
export function defaultMaxConnections(limit: OpenFileLimit | null): number {
  const soft = limit && Number.isFinite(limit.soft) ? limit.soft : ASSUMED_LIMIT;
  const headroom = Math.max(MIN_HEADROOM, Math.ceil(soft * HEADROOM_SHARE));
  return Math.max(1, soft - headroom);
}
