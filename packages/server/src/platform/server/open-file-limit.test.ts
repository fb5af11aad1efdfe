import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultMaxConnections, raiseOpenFileLimit, readOpenFileLimit } from './open-file-limit.js';

const hasProc = (() => {
  try {
    readFileSync('/proc/self/limits');
    return true;
  } catch {
    return false;
  }
})();
const hasPrlimit = (() => {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** A process whose soft open-file limit is `soft` (below its hard one), once it runs. */
async function processWithSoftLimit(soft: number, hard: number): Promise<number> {
  const child = spawn('prlimit', [`--nofile=${soft}:${hard}`, 'sleep', '30'], { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid!;
  // prlimit execs sleep in the same process once the limit is set.
  for (let i = 0; i < 250; i++) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep') return pid;
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the child never started');
}

describe('the open-file limit', () => {
  it.skipIf(!hasProc)('reads the limit the process runs with', () => {
    // A shell started from here inherits the limits.
    const [soft, hard] = execFileSync('sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8' }).trim().split('\n');
    const limit = readOpenFileLimit();
    expect(limit).toEqual({
      soft: soft === 'unlimited' ? Infinity : Number(soft),
      hard: hard === 'unlimited' ? Infinity : Number(hard),
    });
  });

  it.skipIf(!hasProc || !hasPrlimit)('raises the soft limit of a process to its hard limit', async () => {
    const { hard } = readOpenFileLimit()!;
    const target = Math.min(hard, 4096);
    const pid = await processWithSoftLimit(256, target);
    expect(readOpenFileLimit(pid)).toEqual({ soft: 256, hard: target });

    expect(raiseOpenFileLimit(pid)).toEqual({ soft: target, hard: target });
    expect(readOpenFileLimit(pid)).toEqual({ soft: target, hard: target });
  });

  it.skipIf(!hasProc || !hasPrlimit)('keeps the lower limit and says why when prlimit cannot run', async () => {
    const { hard } = readOpenFileLimit()!;
    const target = Math.min(hard, 4096);
    const pid = await processWithSoftLimit(256, target);
    const warnings: string[] = [];
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(raiseOpenFileLimit(pid, { warn: (_obj, msg) => warnings.push(msg) })).toEqual({ soft: 256, hard: target });
    } finally {
      process.env.PATH = path;
    }
    expect(warnings).toEqual([expect.stringMatching(/could not raise the open-file limit/)]);
    expect(readOpenFileLimit(pid)).toEqual({ soft: 256, hard: target });
  });

  it('derives the connection limit with headroom for everything else the process opens', () => {
    expect(defaultMaxConnections({ soft: 20_000, hard: 20_000 })).toBe(18_000);
    expect(defaultMaxConnections({ soft: 1024, hard: 4096 })).toBe(896);
    // Unknown (no /proc): the usual default of 1024 is assumed.
    expect(defaultMaxConnections(null)).toBe(896);
    expect(defaultMaxConnections({ soft: 100, hard: 100 })).toBe(1);
  });
});
