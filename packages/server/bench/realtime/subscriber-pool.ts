/**
 * The driver's side of the subscriber workers: N streams spread over K worker processes, a wait for
 * "every subscriber has change seq", and the receipts at the end.
 */
import { cpuMs, log } from './common.js';
import type { SubscriberIdentity } from './grpc-wire.js';
import type { SubscriberStart, SubscriberWorkerMessage } from './subscriber-worker.js';
import { WorkerProcess } from './worker-process.js';

type Report = Extract<SubscriberWorkerMessage, { type: 'report' }>;

export interface PoolOptions extends Omit<SubscriberStart, 'type' | 'subscribers' | 'concurrency' | 'identity'> {
  readonly subscribers: number;
  readonly workers: number;
  /** Instance ids and labels the streams declare (our subscribers, raw or grpc-js); subscriber g is the g-th over the workers in order. */
  readonly identity?: SubscriberIdentity;
  /** Connections each worker opens at once (default 50). */
  readonly openConcurrency?: number;
  readonly tag: string;
  /** The worker script, relative to this folder (default: the raw gRPC subscriber-worker.ts). */
  readonly script?: string;
  /** Node flags of the workers (e.g. --expose-gc for memory figures). */
  readonly nodeFlags?: readonly string[];
}

type Ready = Extract<SubscriberWorkerMessage, { type: 'ready' }>;

export interface Latencies {
  /** Per change: from its reference time until the last subscriber had it (Infinity when one never did). */
  readonly all: number[];
  /** Per change: until the first subscriber had it. */
  readonly first: number[];
  /** Per change: mean over subscribers. */
  readonly mean: number[];
  /** Every (change, subscriber) latency. */
  readonly samples: number[];
}

export class SubscriberPool {
  private readonly completions = new Map<number, number>();
  private readonly waiters = new Map<number, () => void>();

  private constructor(
    private readonly workers: ReadonlyArray<WorkerProcess<SubscriberWorkerMessage>>,
    readonly opened: number,
    readonly failed: number,
    readonly openSeconds: number,
    /** What each worker reported once its subscribers were open. */
    readonly ready: readonly Ready[],
  ) {
    for (const worker of workers) {
      worker.onMessage((message) => {
        if (message.type !== 'complete') return;
        const count = (this.completions.get(message.seq) ?? 0) + 1;
        this.completions.set(message.seq, count);
        if (count === this.workers.length) this.waiters.get(message.seq)?.();
      });
    }
  }

  static async open(options: PoolOptions): Promise<SubscriberPool> {
    const workerCount = Math.max(1, Math.min(options.subscribers, options.workers));
    const workers = Array.from(
      { length: workerCount },
      (_, w) =>
        new WorkerProcess<SubscriberWorkerMessage>(
          `subscriber worker ${w + 1}`,
          options.script ?? './subscriber-worker.ts',
          { nodeFlags: options.nodeFlags },
        ),
    );
    await Promise.all(workers.map((w) => w.waitFor('alive', 60_000)));
    const readyAll = workers.map((w) => w.waitFor('ready', 120_000 + options.subscribers * 20));
    let first = 0;
    workers.forEach((worker, w) => {
      const share = Math.floor(options.subscribers / workerCount) + (w < options.subscribers % workerCount ? 1 : 0);
      const start: SubscriberStart = {
        type: 'start',
        url: options.url,
        serviceId: options.serviceId,
        versionId: options.versionId,
        afterTimestampUs: options.afterTimestampUs,
        key: options.key,
        subscribers: share,
        maxChanges: options.maxChanges,
        concurrency: options.openConcurrency ?? 50,
        ...(options.identity ? { identity: { ...options.identity, first } } : {}),
      };
      first += share;
      worker.send({ ...start });
    });
    const ready = await Promise.all(readyAll);
    const opened = ready.reduce((s, r) => s + r.opened, 0);
    const failed = ready.reduce((s, r) => s + r.failed, 0);
    const openSeconds = Math.max(...ready.map((r) => r.openMs)) / 1000;
    log(
      `${options.tag}: ${opened}/${options.subscribers} streams open in ${openSeconds.toFixed(1)} s over ${workerCount} worker processes` +
        (failed ? `; ${failed} failed (${ready.find((r) => r.firstError)?.firstError ?? ''})` : ''),
    );
    if (opened === 0) throw new Error('no stream opened');
    return new SubscriberPool(workers, opened, failed, openSeconds, ready);
  }

  /** CPU ms the worker processes have used so far. */
  cpuMs(): number {
    return this.workers.reduce((sum, w) => sum + (w.pid === undefined ? 0 : cpuMs(w.pid)), 0);
  }

  get workerCount(): number {
    return this.workers.length;
  }

  /** Resolves true once every open subscriber has change `seq`, false after `timeoutMs`. */
  allReceived(seq: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      if ((this.completions.get(seq) ?? 0) === this.workers.length) {
        resolve(true);
        return;
      }
      const timer = setTimeout(() => {
        this.waiters.delete(seq);
        resolve(false);
      }, timeoutMs);
      this.waiters.set(seq, () => {
        clearTimeout(timer);
        this.waiters.delete(seq);
        resolve(true);
      });
    });
  }

  async reports(): Promise<Report[]> {
    return Promise.all(
      this.workers.map((w) => {
        const report = w.waitFor('report', 60_000);
        w.send({ type: 'report' });
        return report;
      }),
    );
  }

  /** Latencies of changes `from`..`to − 1`, each measured from `reference[seq]`. */
  static latencies(
    reports: readonly Report[],
    reference: ArrayLike<number>,
    from: number,
    to: number,
    failed: number,
  ): Latencies {
    const result: Latencies = { all: [], first: [], mean: [], samples: [] };
    for (let seq = from; seq < to; seq++) {
      const base = reference[seq] ?? 0;
      let max = -Infinity;
      let min = Infinity;
      let sum = 0;
      let count = 0;
      let missing = 0;
      for (const report of reports) {
        for (let i = 0; i < report.subscribers; i++) {
          const at = report.receipts[seq * report.subscribers + i] ?? Number.NaN;
          if (Number.isNaN(at)) {
            missing++;
            continue;
          }
          const latency = at - base;
          if (latency > max) max = latency;
          if (latency < min) min = latency;
          sum += latency;
          count++;
          result.samples.push(latency);
        }
      }
      // Subscribers that never opened have no receipts; any other gap means a change was lost.
      result.all.push(missing > failed ? Infinity : max);
      result.first.push(min);
      result.mean.push(sum / count);
    }
    return result;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
