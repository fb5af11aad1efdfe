/**
 * What targeting.ts measured, as figures and Markdown tables: one change to every stream in each
 * setup, the rollout steps, and the targets.
 */
import { fixed, machine, markdownTable, percentile } from './common.js';
import type { RolloutPlan, StepFigures } from './rollout-steps.js';
import { SubscriberPool } from './subscriber-pool.js';

/** BENCHMARKS.md "Realtime fan-out", 10,000 subscribers on SQLite: every subscriber had it, p50 / p99 after the answer. */
const EARLIER = { p50: 356, p99: 833 };

export type Setup = 'a' | 'b' | 'c';
const SETUPS: Record<Setup, string> = {
  a: 'a. no targeting',
  b: 'b. 5 override groups + a rollout at 50 % elsewhere',
  c: 'c. Redis pub/sub',
};

/** One pool's change times: sent and answered (REST answer or EXEC), by change number. */
export class Timeline {
  readonly sentAt: Float64Array;
  readonly answeredAt: Float64Array;
  next = 0;
  constructor(size: number) {
    this.sentAt = new Float64Array(size);
    this.answeredAt = new Float64Array(size);
  }
}

/** A setup's measured changes and what they cost the server (or redis-server). */
export interface Measured {
  seqs: number[];
  cpuMs: number;
  /** CPU ms of the subscriber processes over the same changes. */
  subscriberCpuMs: number;
  incomplete: number;
  /** CPU ms per second while idle in the setup, one figure per round. */
  idle: number[];
}

type Report = Awaited<ReturnType<SubscriberPool['reports']>>[number];

export function setupFigures(
  kind: Setup,
  timeline: Timeline,
  reports: readonly Report[],
  failed: number,
  measured: Measured,
) {
  const of = (reference: Float64Array) => {
    const each: number[] = [];
    const all: number[] = [];
    for (const seq of measured.seqs) {
      const one = SubscriberPool.latencies(reports, reference, seq, seq + 1, failed);
      each.push(...one.samples);
      all.push(...one.all);
    }
    return { each, all };
  };
  const afterAnswer = of(timeline.answeredAt);
  const afterSend = of(timeline.sentAt);
  const p = percentile;
  return {
    kind,
    changes: measured.seqs.length,
    answer: { p50: p(afterAnswer.each, 0.5), p95: p(afterAnswer.each, 0.95), p99: p(afterAnswer.each, 0.99) },
    send: { p50: p(afterSend.each, 0.5), p99: p(afterSend.each, 0.99) },
    all: { p50: p(afterAnswer.all, 0.5), p99: p(afterAnswer.all, 0.99) },
    cpuPerChange: measured.cpuMs / measured.seqs.length,
    subscriberCpuPerChange: measured.subscriberCpuMs / measured.seqs.length,
    idle: measured.idle.reduce((sum, v) => sum + v, 0) / measured.idle.length,
    incomplete: measured.incomplete,
  };
}

type Row = ReturnType<typeof setupFigures>;

const ratio = (x: number, y: number | undefined) => (y ? `${fixed(x / y, 2)}×` : '–');
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

function targets(rows: readonly Row[], steps: readonly StepFigures[], subscribers: number): string[][] {
  const [a, b, c] = (['a', 'b', 'c'] as const).map((k) => rows.find((r) => r.kind === k));
  const out: string[][] = [];
  if (a && subscribers === 10_000) {
    out.push([
      `(a) within 10 % of "Realtime fan-out" (every stream ${EARLIER.p50} / ${EARLIER.p99} ms)`,
      `${fixed(a.all.p50, 0)} / ${fixed(a.all.p99, 0)} ms (${ratio(a.all.p50, EARLIER.p50)} / ${ratio(a.all.p99, EARLIER.p99)})`,
      verdict(a.all.p50 <= EARLIER.p50 * 1.1 && a.all.p99 <= EARLIER.p99 * 1.1),
    ]);
  }
  if (a && c) {
    for (const from of ['answer', 'send'] as const) {
      out.push([
        `(a) each-stream p99 ≤ 2× Redis, after the ${from}`,
        `${fixed(a[from].p99)} vs ${fixed(c[from].p99)} ms (${ratio(a[from].p99, c[from].p99)})`,
        verdict(a[from].p99 <= 2 * c[from].p99),
      ]);
    }
  }
  if (a && b) {
    out.push([
      '(b) each-stream p99 ≤ 1.5× (a), after the answer',
      `${fixed(b.answer.p99)} vs ${fixed(a.answer.p99)} ms (${ratio(b.answer.p99, a.answer.p99)})`,
      verdict(b.answer.p99 <= 1.5 * a.answer.p99),
    ]);
  }
  for (const s of steps) {
    const p99 = percentile(s.latencies, 0.99);
    out.push([
      `rollout step ${s.step + 1} (${s.percent} %): p99 ≤ 2 s`,
      `${fixed(p99, 0)} ms`,
      verdict(p99 <= 2000 && s.missing === 0 && s.early === 0),
    ]);
  }
  return out;
}

export function targetingReport(run: {
  readonly rows: readonly Row[];
  readonly steps: readonly StepFigures[];
  readonly rollouts: number;
  readonly plan: RolloutPlan;
  readonly subscribers: number;
  readonly opened: number;
  readonly failed: number;
  readonly endedEarly: number;
  readonly changes: number;
  readonly rounds: number;
  readonly warmUp: number;
}): string {
  const fanout = markdownTable(
    [
      'setup',
      'changes',
      'each after the answer p50 / p95 / p99 ms',
      'each after the send p50 / p99 ms',
      'every stream p50 / p99 ms',
      'CPU ms per change (server or redis-server)',
      'subscribers CPU ms per change',
      'idle CPU ms/s',
      'incomplete',
    ],
    run.rows.map((r) => [
      SETUPS[r.kind],
      String(r.changes),
      `${fixed(r.answer.p50)} / ${fixed(r.answer.p95)} / ${fixed(r.answer.p99)}`,
      `${fixed(r.send.p50)} / ${fixed(r.send.p99)}`,
      `${fixed(r.all.p50)} / ${fixed(r.all.p99)}`,
      fixed(r.cpuPerChange),
      fixed(r.subscriberCpuPerChange),
      fixed(r.idle),
      String(r.incomplete),
    ]),
  );
  const steps = markdownTable(
    [
      'step',
      'entering streams',
      'p50 ms',
      'p99 ms',
      'max ms',
      'missing',
      'before their step',
      'step late by p50 / max ms',
    ],
    run.steps.map((s) => [
      `${s.step + 1} (${s.percent} %)`,
      String(s.latencies.length + s.missing),
      fixed(percentile(s.latencies, 0.5), 0),
      fixed(percentile(s.latencies, 0.99), 0),
      fixed(Math.max(...s.latencies), 0),
      String(s.missing),
      String(s.early),
      s.tickLagMs.length ? `${fixed(percentile(s.tickLagMs, 0.5), 0)} / ${fixed(Math.max(...s.tickLagMs), 0)}` : '–',
    ]),
  );
  return (
    `\n${machine()}\n\nOne change → ${run.subscribers} streams (${run.opened} opened, ${run.failed} failed; ` +
    `${run.endedEarly} ended early), ${run.changes} changes per setup in ${run.rounds} rounds (a, b, c in turn), ` +
    `${run.warmUp} warm-up each:\n\n${fanout}\n\n` +
    `${run.rollouts} rollouts at [${run.plan.steps.join(', ')}], stepSeconds ${run.plan.stepSeconds}: step start ` +
    `(stepStartedAt) → arrival, per entering stream:\n\n${steps}\n\n` +
    `Targets:\n\n${markdownTable(['target', 'measured', ''], targets(run.rows, run.steps, run.subscribers), 3)}\n`
  );
}
