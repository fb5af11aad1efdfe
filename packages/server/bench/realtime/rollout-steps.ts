/**
 * A rollout's step reaching its instances (targeting.ts, part 2): rollouts of the benchmark entry
 * with the server's clock and scheduler real; for each stream that enters at a step, the time from
 * the step's start (the rollout's `stepStartedAt`, read through GET while it runs) to the arrival of
 * the new value. Which step a stream enters at comes from the hash rule (test-support's independent
 * FNV-1a), so a stream that receives the value before its step, or never, is counted.
 *
 * Clocks: the server stamps `stepStartedAt` with `performance.timeOrigin + performance.now()`; the
 * driver reads the same expression and CLOCK_MONOTONIC (nowMs) together once per rollout, and maps
 * the step's start onto CLOCK_MONOTONIC, on which the workers time each arrival.
 */
import { isInRollout } from '@realtime-config/test-support/rollout-fixtures';
import { log, nowMs, sleep } from './common.js';
import { instanceIdOf, type SubscriberIdentity } from './grpc-wire.js';
import type { RestClient } from './server.js';
import type { SubscriberPool } from './subscriber-pool.js';

type Report = Awaited<ReturnType<SubscriberPool['reports']>>[number];

interface RolloutAnswer {
  readonly id: string;
  readonly status: string;
  readonly step: number;
  readonly stepStartedAt: string | null;
  readonly nextAt: string | null;
}

export interface RolloutPlan {
  readonly rest: RestClient;
  readonly serviceId: string;
  readonly versionId: string;
  readonly entryId: string;
  readonly pool: SubscriberPool;
  readonly identity: SubscriberIdentity;
  readonly steps: readonly number[];
  readonly stepSeconds: number;
  /** The change numbers of the rollouts' new values (`change-<seq>`), one rollout each. */
  readonly seqs: readonly number[];
  /** The entry's generation now; answers it after the rollouts (each is promoted at its end). */
  generation: number;
}

/** One rollout as it ran: its id, each step's start on CLOCK_MONOTONIC, each step's lateness. */
export interface RolloutRun {
  readonly id: string;
  readonly seq: number;
  readonly stepStartMs: number[];
  /** Per step after the first: its start − the time it was due (the previous step's nextAt). */
  readonly tickLagMs: number[];
}

/** Milliseconds since the epoch of the server's times (`2026-11-21T12:00:00.123456Z`), µs kept. */
const epochMs = (iso: string): number => Date.parse(`${iso.slice(0, 23)}Z`) + Number(iso.slice(23, 26) || 0) / 1000;

/** Runs the rollouts one after another; each is promoted once every stream has its new value. */
export async function runRollouts(plan: RolloutPlan): Promise<RolloutRun[]> {
  const { rest, serviceId, versionId, entryId, pool } = plan;
  const base = `/api/configversions/${serviceId}/${versionId}/rollouts`;
  const runs: RolloutRun[] = [];
  for (const seq of plan.seqs) {
    const epochOffset = performance.timeOrigin + performance.now() - nowMs();
    const toMono = (iso: string) => epochMs(iso) - epochOffset;
    const created = await rest.call<RolloutAnswer>('POST', base, {
      changes: [{ id: entryId, rawValue: `change-${seq}`, generation: plan.generation }],
      steps: plan.steps,
      stepSeconds: plan.stepSeconds,
      bakeSeconds: 30,
    });
    const run: RolloutRun = { id: created.id, seq, stepStartMs: [], tickLagMs: [] };
    let dueAt: string | null = null;
    while (run.stepStartMs.length < plan.steps.length) {
      const now = await rest.call<RolloutAnswer>('GET', `${base}/${created.id}`);
      if (now.stepStartedAt && now.step === run.stepStartMs.length) {
        run.stepStartMs.push(toMono(now.stepStartedAt));
        if (dueAt) run.tickLagMs.push(epochMs(now.stepStartedAt) - epochMs(dueAt));
        dueAt = now.nextAt;
        continue;
      }
      if (now.step > run.stepStartMs.length || !['running', 'baking'].includes(now.status))
        throw new Error(`rollout ${created.id} moved past a step unseen: ${JSON.stringify(now)}`);
      // Asleep until just before the next step is due, then every 25 ms until the scheduler takes it.
      await sleep(dueAt ? Math.max(25, toMono(dueAt) - 30 - nowMs()) : 25);
    }
    if (!(await pool.allReceived(seq, 30_000))) log(`rollout ${created.id}: not every stream had its value after 30 s`);
    await rest.call('POST', `${base}/${created.id}/promote`);
    const entries = await rest.call<Array<{ id: string; generation: number }>>(
      'GET',
      `/api/configentries/${serviceId}/${versionId}`,
    );
    plan.generation = entries.find((e) => e.id === entryId)?.generation ?? Number.NaN;
    log(
      `rollout ${created.id}: steps started ${run.stepStartMs.map((t, k) => (k === 0 ? '0' : `+${(t - (run.stepStartMs[0] ?? 0)).toFixed(0)}`)).join(', ')} ms; ` +
        `late by ${run.tickLagMs.map((l) => l.toFixed(0)).join(', ')} ms`,
    );
    runs.push(run);
    await sleep(1000);
  }
  return runs;
}

/** Per step, over every rollout: each entering stream's arrival − its step's start. */
export interface StepFigures {
  readonly step: number;
  readonly percent: number;
  readonly latencies: number[];
  /** Entering streams that never received the value. */
  missing: number;
  /** Streams that had it more than 1 ms before their step started (the hash rule says they were out). */
  early: number;
  readonly tickLagMs: number[];
}

export function stepFigures(runs: readonly RolloutRun[], reports: readonly Report[], plan: RolloutPlan): StepFigures[] {
  const figures: StepFigures[] = plan.steps.map((percent, step) => ({
    step,
    percent,
    latencies: [],
    missing: 0,
    early: 0,
    tickLagMs: runs.map((r) => r.tickLagMs[step - 1] ?? Number.NaN).filter((l) => !Number.isNaN(l)),
  }));
  for (const run of runs) {
    let g = 0;
    for (const report of reports) {
      for (let i = 0; i < report.subscribers; i++, g++) {
        const id = instanceIdOf(plan.identity, g);
        const step = plan.steps.findIndex((percent) => isInRollout(run.id, id, percent));
        const into = figures[step] as StepFigures;
        const arrival = report.receipts[run.seq * report.subscribers + i] ?? Number.NaN;
        if (Number.isNaN(arrival)) into.missing++;
        else {
          const latency = arrival - (run.stepStartMs[step] ?? Number.NaN);
          if (latency < -1) into.early++;
          into.latencies.push(latency);
        }
      }
    }
  }
  return figures;
}
