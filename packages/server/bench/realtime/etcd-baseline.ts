/**
 * An etcd server for the baselines (hot-path.ts): Debian's `etcd` (BENCH_ETCD_BIN) started on free
 * loopback ports with a data folder of its own and its default durability (each PUT is fsynced to
 * its write-ahead log), removed at the end. Absent binary: null, and the baseline is skipped.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { nowMs, onCleanup, sleep } from './common.js';
import { freePort } from './server.js';

export interface EtcdBaseline {
  readonly url: string;
  readonly pid: number;
  put(key: string, value: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startEtcd(): Promise<EtcdBaseline | null> {
  const bin = process.env.BENCH_ETCD_BIN ?? '/usr/bin/etcd';
  if (!existsSync(bin)) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-bench-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    bin,
    [
      `--data-dir=${dir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-5000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const client = new Etcd3({ hosts: url });
  let unregister = (): void => undefined;
  const stop = async (): Promise<void> => {
    unregister(); // once: by the script, or by the clean-up at the end
    client.close();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  unregister = onCleanup(stop, () => child.kill('SIGKILL'));
  const deadline = nowMs() + 30_000;
  for (;;) {
    try {
      await client.put('rc-bench:ready').value('1');
      break;
    } catch (error) {
      if (child.exitCode !== null || nowMs() > deadline)
        throw new Error(`etcd did not start: ${String(error)}\n${output}`);
      await sleep(100);
    }
  }
  return {
    url,
    pid: child.pid ?? 0,
    put: async (key, value) => void (await client.put(key).value(value)),
    stop,
  };
}
