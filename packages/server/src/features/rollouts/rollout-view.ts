import { currentPercent, type RolloutRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';

/**
 * A rollout as every answer shows it (REST, webhook deliveries): a secret's new value is left out
 * (`rawValue` null, `isSecret` true), as a change request shows it.
 */
export function rolloutView(r: RolloutRecord) {
  return {
    id: r.id,
    serviceId: r.serviceId,
    versionId: r.versionId,
    status: r.status,
    changes: r.changes.map((c) => ({
      id: c.id,
      key: c.key,
      rawValue: c.isSecret ? null : c.rawValue,
      generation: c.generation,
      ...(c.isSecret ? { isSecret: true } : {}),
    })),
    steps: [...r.steps],
    step: r.step,
    percent: currentPercent(r),
    stepSeconds: r.stepSeconds,
    bakeSeconds: r.bakeSeconds,
    startAt: microsToIso(r.startAt),
    stepStartedAt: r.stepStartedAt === null ? null : microsToIso(r.stepStartedAt),
    nextAt: r.nextAt === null ? null : microsToIso(r.nextAt),
    match: { labels: { ...r.match } },
    rollback: { disconnectedShare: r.rollback.disconnectedShare },
    received: r.received.in.length,
    gone: Object.keys(r.received.gone).length,
    createdBy: r.createdBy,
    createdAt: microsToIso(r.createdAt),
    updatedAt: microsToIso(r.updatedAt),
    reason: r.reason,
  };
}

export type RolloutView = ReturnType<typeof rolloutView>;
