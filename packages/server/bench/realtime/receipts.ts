/**
 * A load-generator worker's record of when each of its listeners received each change (a change is
 * recognised by its value, `change-<seq>`), and its answer to the driver's 'report' request.
 */
import type { SubscriberWorkerMessage } from './subscriber-worker.js';
import { sendToParent } from './worker-process.js';

type Report = Extract<SubscriberWorkerMessage, { type: 'report' }>;

export class Receipts {
  /** times[seq * listeners + i]: monotonic ms when listener i received change seq; NaN if never. */
  readonly times: Float64Array;
  private readonly counts: Uint32Array;

  constructor(
    private readonly listeners: number,
    private readonly maxChanges: number,
  ) {
    this.times = new Float64Array(maxChanges * listeners).fill(Number.NaN);
    this.counts = new Uint32Array(maxChanges);
  }

  /** The change number of a value, or -1 when it is not a benchmark change. */
  static seqOf(value: string | undefined): number {
    return value?.startsWith('change-') ? Number(value.slice(7)) : -1;
  }

  /** Listener `i` received change `seq` at `at`; once `expected` listeners have it, the driver is told. */
  record(i: number, seq: number, at: number, expected: number): void {
    if (!(seq >= 0 && seq < this.maxChanges)) return;
    const index = seq * this.listeners + i;
    if (!Number.isNaN(this.times[index])) return;
    this.times[index] = at;
    this.counts[seq] = (this.counts[seq] ?? 0) + 1;
    if (this.counts[seq] === expected) sendToParent({ type: 'complete', seq });
  }

  /** Sends the report whenever the driver asks; `details` fills in what only the worker knows. */
  answerReports(details: () => Omit<Report, 'type' | 'subscribers' | 'receipts'>): void {
    process.on('message', (message: { type: string }) => {
      if (message.type !== 'report') return;
      sendToParent({ type: 'report', subscribers: this.listeners, receipts: this.times, ...details() });
    });
  }
}
