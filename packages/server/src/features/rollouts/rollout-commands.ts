import {
  actorOfCaller,
  DISCONNECTED_REASON,
  unreadableReason,
  EntryWriter,
  isActive,
  notAllowed,
  slotOf,
  type Actor,
  type AuditChanges,
  type Caller,
  type EntryRecord,
  type RolloutRecord,
  type UnitOfWork,
  type VersionCaps,
  type WriteContext,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { requireFitAndCurrent } from '../entries/index.js';
import { atStep, ended, nextMove, paused, resumed } from './rollout-progress.js';
import { requireValidRollout, type RolloutInput } from './rollout-input.js';
import { heldUntil } from './rollout-receivers.js';
import { reportRollout, rolloutAudit } from './rollout-records.js';

/** Who moves a rollout on its schedule (steps, completion, an automatic rollback). */
export const SCHEDULER: Actor = { userId: 'system:rollouts', userName: 'Rollout schedule' };

export type RolloutAction = 'pause' | 'resume' | 'promote' | 'rollback' | 'alarm';

/** What the writes of a rollout share: opened on its version, one change clock tick. */
interface RolloutWrite {
  readonly ctx: WriteContext;
  readonly writer: EntryWriter;
  readonly actor: Actor;
  readonly now: number;
  /** The write's ids: the same in every run of it (checkedWrites runs it again after validators). */
  readonly ids: IdGenerator;
}

/**
 * Rollouts (docs/rollouts.md): created by an editor (or an approved change request on a protected
 * version), moved by their schedule (`advance`, one server instance at a time: each move locks the
 * rollout's row and checks it is still due), paused, resumed, promoted, rolled back. Every move of
 * the entries goes through the entry writer, in the same transaction as the rollout's record.
 */
export class RolloutCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly caps: VersionCaps,
  ) {}

  create(caller: Caller, serviceId: string, versionId: string, input: RolloutInput): Promise<RolloutRecord> {
    return this.uow.write(async (ctx) => {
      const write = await this.open(ctx, actorOfCaller(caller), serviceId, versionId, 'refuse');
      return this.createIn(write, serviceId, versionId, input);
    });
  }

  /**
   * Creates a rollout inside a change request's application: its transaction and its writer (opened
   * on the protected version with `protectedVersion: 'allow'`), the request named in the records.
   * The caller commits the writer.
   */
  async createWithWriter(
    ctx: WriteContext,
    writer: EntryWriter,
    actor: Actor,
    target: { readonly serviceId: string; readonly versionId: string },
    input: RolloutInput,
    changeRequest: NonNullable<AuditChanges['changeRequest']>,
  ): Promise<RolloutRecord> {
    const write = { ctx, writer, actor, now: this.clock.nowMicros(), ids: ctx.ids ?? this.ids };
    return this.createIn(write, target.serviceId, target.versionId, input, changeRequest, false);
  }

  private async createIn(
    write: RolloutWrite,
    serviceId: string,
    versionId: string,
    input: RolloutInput,
    changeRequest?: AuditChanges['changeRequest'],
    commit = true,
  ): Promise<RolloutRecord> {
    const { ctx, writer, actor, now } = write;
    const startAt = requireValidRollout(input, now);
    const ids = input.changes.map((c) => c.id);
    const found = new Map((await ctx.entries.getManyLive(versionId, ids)).map((e) => [e.id, e]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw AppError.notFound(`Entries not found in this version: ${missing.join(', ')}.`);
    requireFitAndCurrent(input.changes, found, 'changes');
    let rollout: RolloutRecord = {
      id: write.ids.newId(),
      serviceId,
      versionId,
      status: 'scheduled',
      changes: input.changes.map((c) => {
        const entry = found.get(c.id) as EntryRecord;
        return {
          id: c.id,
          key: entry.key,
          rawValue: c.rawValue,
          generation: c.generation,
          ...(entry.isSecret ? { isSecret: true } : {}),
        };
      }),
      steps: input.steps,
      step: 0,
      stepSeconds: input.stepSeconds,
      bakeSeconds: input.bakeSeconds,
      startAt,
      stepStartedAt: null,
      nextAt: startAt,
      match: input.match?.labels ?? {},
      rollback: { disconnectedShare: input.rollback?.disconnectedShare ?? 0.2 },
      received: { in: [], gone: {} },
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
      reason: null,
    };
    await ctx.rollouts.insert(rollout);
    await ctx.audit.append(rolloutAudit(write.ids.newId(), 'RolloutCreated', rollout, write, changeRequest));
    if (startAt <= now) rollout = await this.stepTo(write, rollout, atStep(rollout, 0, now));
    else await this.moveEntries(write, rollout, rollout);
    if (commit) await writer.commit();
    return rollout;
  }

  /** Pause, resume, promote, roll back, or an alarm's rollback (409 when the status does not allow it). */
  act(
    caller: Caller,
    serviceId: string,
    versionId: string,
    rolloutId: string,
    action: RolloutAction,
    reason: string | null = null,
  ): Promise<RolloutRecord> {
    const actor = actorOfCaller(caller);
    return this.uow.write(async (ctx) => {
      // Stopping or pacing a rollout is no change of values: a protected version allows it too.
      const write = await this.open(ctx, actor, serviceId, versionId, 'allow');
      const rollout = await ctx.rollouts.getForUpdate(versionId, rolloutId);
      if (!rollout) throw AppError.notFound(`Rollout ${rolloutId} was not found in version ${versionId}.`);
      let after: RolloutRecord;
      switch (action) {
        case 'pause':
          if (!isActive(rollout.status) || rollout.status === 'paused') throw notAllowed(rollout, 'paused');
          after = paused(rollout, write.now);
          await ctx.rollouts.update(after);
          await ctx.audit.append(rolloutAudit(write.ids.newId(), 'RolloutPaused', after, write));
          break;
        case 'resume':
          if (rollout.status !== 'paused') throw notAllowed(rollout, 'resumed');
          after = resumed(rollout, write.now);
          await ctx.rollouts.update(after);
          await ctx.audit.append(rolloutAudit(write.ids.newId(), 'RolloutResumed', after, write));
          break;
        case 'promote':
          if (!isActive(rollout.status)) throw notAllowed(rollout, 'promoted');
          after = await this.complete(write, rollout, `promoted by ${actor.userName ?? actor.userId}`);
          break;
        case 'rollback':
        case 'alarm':
          if (!isActive(rollout.status)) throw notAllowed(rollout, 'rolled back');
          after = await this.rollBack(
            write,
            rollout,
            action === 'alarm'
              ? `alarm: ${reason ?? 'no reason given'}`
              : `rolled back by ${actor.userName ?? actor.userId}`,
          );
          break;
      }
      await write.writer.commit();
      return after;
    });
  }

  /**
   * Moves one rollout whose time has come (its first step, its next step, its completion). Its row
   * is locked and its due time read again inside the write, so when several server instances try
   * at once exactly one moves it; the others find it moved and do nothing. False when it was not due.
   */
  async advance(rollout: Pick<RolloutRecord, 'id' | 'serviceId' | 'versionId'>, graceMicros: number): Promise<boolean> {
    return this.uow.write(async (ctx) => {
      const write = await this.open(ctx, SCHEDULER, rollout.serviceId, rollout.versionId, 'allow');
      const current = await ctx.rollouts.getForUpdate(rollout.versionId, rollout.id);
      if (!current || !isActive(current.status) || current.nextAt === null || current.nextAt > write.now) return false;
      // Receivers that went away may be a crash: no step, no completion, until it is known; once
      // they stayed away for the grace time, it rolls back here (the watch would, a moment later).
      const held = heldUntil(current, graceMicros);
      if (held !== null && held > write.now) {
        await ctx.rollouts.update({ ...current, nextAt: held, updatedAt: write.now });
        return false;
      }
      if (held !== null) {
        await this.rollBack(write, current, DISCONNECTED_REASON);
        await write.writer.commit();
        return true;
      }
      const move = nextMove(current, write.now);
      // New values the server can no longer decrypt (its master key changed) never complete as
      // nothing: the rollout rolls back, saying why, and the entries keep their values.
      const unreadable = current.changes.filter((c) => c.unreadable).map((c) => c.key);
      if (move.kind === 'step') await this.stepTo(write, current, move.rollout);
      else if (unreadable.length > 0) await this.rollBack(write, current, unreadableReason(unreadable));
      else await this.complete(write, current, null);
      await write.writer.commit();
      return true;
    });
  }

  /** Rolls back a rollout whose instances went away (the receivers' watch); false when it no longer runs. */
  rollBackFor(rollout: Pick<RolloutRecord, 'id' | 'serviceId' | 'versionId'>, reason: string): Promise<boolean> {
    return this.uow.write(async (ctx) => {
      const write = await this.open(ctx, SCHEDULER, rollout.serviceId, rollout.versionId, 'allow');
      const current = await ctx.rollouts.getForUpdate(rollout.versionId, rollout.id);
      if (!current || !isActive(current.status)) return false;
      await this.rollBack(write, current, reason);
      await write.writer.commit();
      return true;
    });
  }

  private async stepTo(write: RolloutWrite, before: RolloutRecord, after: RolloutRecord): Promise<RolloutRecord> {
    await write.ctx.rollouts.update(after);
    await this.moveEntries(write, before, after);
    await write.ctx.audit.append(rolloutAudit(write.ids.newId(), 'RolloutStepped', after, write));
    if (before.stepStartedAt === null) reportRollout(write, 'rollout.started', after);
    return after;
  }

  private complete(write: RolloutWrite, rollout: RolloutRecord, reason: string | null): Promise<RolloutRecord> {
    return this.end(write, rollout, 'completed', reason);
  }

  private rollBack(write: RolloutWrite, rollout: RolloutRecord, reason: string): Promise<RolloutRecord> {
    return this.end(write, rollout, 'rolled_back', reason);
  }

  /** Ends a rollout: its entries' values written (endRollout), audited, reported to webhooks. */
  private async end(
    write: RolloutWrite,
    rollout: RolloutRecord,
    outcome: 'completed' | 'rolled_back',
    reason: string | null,
  ): Promise<RolloutRecord> {
    const after = ended(rollout, outcome, reason, write.now);
    await write.ctx.rollouts.update(after);
    await write.writer.endRollout(await this.entriesOf(write.ctx, rollout), outcome);
    const completed = outcome === 'completed';
    const action = completed ? 'RolloutCompleted' : 'RolloutRolledBack';
    await write.ctx.audit.append(rolloutAudit(write.ids.newId(), action, after, write));
    reportRollout(write, completed ? 'rollout.completed' : 'rollout.rolled_back', after);
    return after;
  }

  /** Gives the rollout's entries their slot at its current step (its share of instances). */
  private async moveEntries(write: RolloutWrite, before: RolloutRecord, after: RolloutRecord): Promise<void> {
    const entries = await this.entriesOf(write.ctx, before);
    const changes = new Map(after.changes.map((c) => [c.id, c]));
    await write.writer.moveRollout(
      entries.map((entry) => ({ before: entry, rollout: slotOf(after, changes.get(entry.id) as never) })),
    );
  }

  /** The rollout's entries, as they are now (a rollout holds them: none was deleted meanwhile). */
  private async entriesOf(ctx: WriteContext, rollout: RolloutRecord): Promise<EntryRecord[]> {
    return ctx.entries.getManyLive(
      rollout.versionId,
      rollout.changes.map((c) => c.id),
    );
  }

  private async open(
    ctx: WriteContext,
    actor: Actor,
    serviceId: string,
    versionId: string,
    protectedVersion: 'refuse' | 'allow',
  ): Promise<RolloutWrite> {
    const now = this.clock.nowMicros();
    const writer = await EntryWriter.open(ctx, {
      serviceId,
      versionId,
      actor,
      nowMicros: now,
      ids: this.ids,
      caps: this.caps,
      protectedVersion,
    });
    return { ctx, writer, actor, now, ids: ctx.ids ?? this.ids };
  }
}
