import {
  currentPercent,
  type AuditAction,
  type AuditChanges,
  type AuditRecord,
  type RolloutRecord,
} from '../../core/index.js';
import type { EntryWriter, Actor, WriteContext } from '../../core/index.js';
import { rolloutView } from './rollout-view.js';

interface Write {
  readonly ctx: WriteContext;
  readonly writer: EntryWriter;
  readonly actor: Actor;
  readonly now: number;
}

/**
 * A rollout's audit record: where it stands (status, step, share of instances, reason) and the keys
 * it changes, never their values (a secret's stays out of the log; the entries' records at the
 * end hold the values, sealed as they are).
 */
export function rolloutAudit(
  id: string,
  action: AuditAction,
  rollout: RolloutRecord,
  write: Write,
  changeRequest?: AuditChanges['changeRequest'],
): Omit<AuditRecord, 'num'> {
  return {
    id,
    serviceId: rollout.serviceId,
    entityType: 'Rollout',
    entityId: rollout.id,
    versionId: rollout.versionId,
    action,
    ...write.actor,
    timestamp: write.writer.timestamp,
    changes: {
      after: {
        status: rollout.status,
        step: rollout.step,
        percent: currentPercent(rollout),
        steps: rollout.steps,
        keys: rollout.changes.map((c) => c.key),
        reason: rollout.reason,
      },
      ...(changeRequest ? { changeRequest } : {}),
    },
  };
}

/** Tells webhooks of a rollout's start, completion or rollback (`data` = the rollout, secrets redacted). */
export function reportRollout(
  write: Write,
  type: 'rollout.started' | 'rollout.completed' | 'rollout.rolled_back',
  rollout: RolloutRecord,
): void {
  write.ctx.report({
    type,
    serviceId: rollout.serviceId,
    versionId: rollout.versionId,
    versionLabel: write.writer.versionLabel,
    actor: write.actor,
    timestamp: write.writer.timestamp,
    rollout: rolloutView(rollout),
  });
}
