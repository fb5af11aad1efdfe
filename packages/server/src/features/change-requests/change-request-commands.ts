import {
  actorOf,
  actorOfCaller,
  auditView,
  countingApprovals,
  EntryWriter,
  requireMayApprove,
  requireServiceAccess,
  snapshotOf,
  writerOf,
  wroteContent,
  type Actor,
  type Caller,
  type CurrentIdentities,
  type ChangeRequestRecord,
  type ChangeRequestStatus,
  type EntryRecord,
  type RequestedChange,
  type SecretCipher,
  unreadableSecret,
  type UnitOfWork,
  type VersionCaps,
  type WriteContext,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { checkValue } from '../../protocol.js';
import type { RolloutCommands, RolloutInput } from '../rollouts/index.js';
import {
  contentHashOf,
  requireCurrent,
  requirePending,
  requireRequest,
  requireVersion,
  requireWellFormed,
  viewForAudit,
  type Target,
} from './change-request-checks.js';

export { MAX_REQUESTED_CHANGES } from './change-request-checks.js';

export interface ChangeRequestInput {
  readonly title: string;
  readonly description: string | null;
  readonly changes: readonly RequestedChange[];
}

export interface ChangeRequestSettings {
  /** Versions:RequiredApprovals. */
  readonly requiredApprovals: number;
  readonly caps: VersionCaps;
  /** A secret value counts in the content hash by its fingerprint, never as itself. */
  readonly cipher: SecretCipher;
  /** Who approvers are now: an approval counts at apply only while its approver may still change values. */
  readonly identities: CurrentIdentities;
  /** Applies a request as a rollout (`{"rollout": …}`, docs/rollouts.md). */
  readonly rollouts: RolloutCommands;
}

const isAuthor = (caller: Caller, request: ChangeRequestRecord): boolean =>
  writerOf(caller).userId === request.authorId;

/**
 * Change requests: reviewed value changes, the only way to change a protected version. One is
 * opened by an editor with the values it sets and the generations they were based on, approved by
 * others (never its author nor anyone who edited it; Versions:RequiredApprovals of them), and
 * applied as one batch: all of it when no entry changed since, else nothing and it turns stale. An
 * edit of its changes drops every approval (approvals are bound to the changes' digest). Approve,
 * edit, apply and close of one request lock it, so they happen one after the other; apply counts
 * the approvals again (core's countingApprovals). Every step is audited.
 */
export class ChangeRequestCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: ChangeRequestSettings,
  ) {}

  create(caller: Caller, target: Target, input: ChangeRequestInput): Promise<ChangeRequestRecord> {
    requireWellFormed(input.changes);
    return this.uow.write(async (ctx) => {
      await requireVersion(ctx, target);
      const changes = await requireCurrent(ctx, target.versionId, input.changes);
      const now = this.clock.nowMicros();
      const author = writerOf(caller);
      const request: ChangeRequestRecord = {
        id: this.ids.newId(),
        ...target,
        title: input.title,
        description: input.description,
        authorId: author.userId,
        authorName: author.userName,
        status: 'open',
        changes,
        contentHash: contentHashOf(changes, this.settings.cipher),
        createdAt: now,
        updatedAt: now,
        closedBy: null,
        editors: [],
        approvals: [],
        rolloutId: null,
      };
      await ctx.changeRequests.insert(request);
      await this.audit(ctx, actorOfCaller(caller), request, 'Created', { after: auditView(viewForAudit(request)) });
      return request;
    });
  }

  /**
   * Edits a request (its author, or an owner, who then may no longer approve it); new changes drop
   * every approval and reopen it.
   */
  update(caller: Caller, target: Target, id: string, input: ChangeRequestInput): Promise<ChangeRequestRecord> {
    requireWellFormed(input.changes);
    return this.uow.write(async (ctx) => {
      const before = await requirePending(ctx, target, id, 'edited');
      if (!isAuthor(caller, before)) await requireServiceAccess(ctx, caller, target.serviceId, 'manage');
      const changes = await requireCurrent(ctx, target.versionId, input.changes);
      const contentHash = contentHashOf(changes, this.settings.cipher);
      if (contentHash !== before.contentHash) await ctx.changeRequests.clearApprovals(id);
      const writer = writerOf(caller).userId;
      const editors = wroteContent(before, writer) ? before.editors : [...before.editors, writer];
      const now = this.clock.nowMicros();
      await ctx.changeRequests.update(id, { ...input, changes, contentHash, editors, updatedAt: now });
      const after = await this.settleStatus(ctx, target, id, now);
      await this.audit(ctx, actorOfCaller(caller), after, 'Updated', {
        before: auditView(viewForAudit(before)),
        after: auditView(viewForAudit(after)),
      });
      return after;
    });
  }

  /** An approval by an editor or owner who wrote none of it; enough of them make it approved. */
  approve(caller: Caller, target: Target, id: string): Promise<ChangeRequestRecord> {
    return this.uow.write(async (ctx) => {
      const request = await requirePending(ctx, target, id, 'approved');
      const approver = requireMayApprove(caller, request);
      const actor = actorOf(approver);
      if (request.status === 'stale') {
        throw AppError.conflict('The change request is stale: an entry changed since. Its author updates it first.');
      }
      const now = this.clock.nowMicros();
      await ctx.changeRequests.addApproval(id, {
        userId: actor.userId,
        userName: actor.userName,
        approvedAt: now,
        contentHash: request.contentHash,
        approver: snapshotOf(approver),
      });
      const after = await this.settleStatus(ctx, target, id, now);
      await this.audit(ctx, actor, after, 'Approved', {
        after: { status: after.status, approvals: after.approvals.length },
      });
      return after;
    });
  }

  /**
   * Sets a pending request's status from the approvals that count now (`approved` with enough of
   * them, else `open`) and answers it as stored.
   */
  private async settleStatus(ctx: WriteContext, target: Target, id: string, now: number) {
    const request = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
    const counting = await countingApprovals(ctx, this.settings.identities, request);
    const status: ChangeRequestStatus = counting.length >= this.settings.requiredApprovals ? 'approved' : 'open';
    if (status === request.status) return request;
    await ctx.changeRequests.update(id, { status, updatedAt: now });
    return { ...request, status };
  }

  /**
   * Applies a request with enough approvals that count now as one batch with its generations.
   * Without them nothing is applied and the answer is 409 (an `approved` one turns `open` again).
   * When any entry changed since, nothing is applied, the request turns stale (that is kept) and
   * the answer is 409.
   */
  async apply(
    caller: Caller,
    target: Target,
    id: string,
    rollout: Omit<RolloutInput, 'changes'> | null = null,
  ): Promise<ChangeRequestRecord> {
    const outcome = await this.uow.write(async (ctx) => {
      const request = await requireRequest(ctx, target, id);
      if (!isAuthor(caller, request)) await requireServiceAccess(ctx, caller, target.serviceId, 'write');
      if (request.status !== 'approved' && request.status !== 'open') {
        throw AppError.conflict(
          request.status === 'stale'
            ? `The change request is stale: an entry changed since. Its author updates it, and it needs ${this.settings.requiredApprovals} approval(s) again.`
            : `The change request is ${request.status}.`,
        );
      }
      // Counted now, whatever the stored status says: an approver demoted, removed or deleted since
      // no longer counts, and one promoted again counts again.
      const counting = await countingApprovals(ctx, this.settings.identities, request);
      if (counting.length < this.settings.requiredApprovals) {
        if (request.status === 'approved') {
          await ctx.changeRequests.update(id, { status: 'open', updatedAt: this.clock.nowMicros() });
        }
        return { short: counting.length };
      }
      const actor = actorOfCaller(caller);
      const changeRequest = { id: request.id, title: request.title, approvers: counting.map((a) => a.userId) };
      // Opening the writer locks the version: the generations checked below cannot move before the commit.
      const writer = await EntryWriter.open(ctx, {
        ...target,
        actor,
        nowMicros: this.clock.nowMicros(),
        ids: this.ids,
        caps: this.settings.caps,
        protectedVersion: 'allow',
        changeRequest,
      });
      const entries = new Map(
        (
          await ctx.entries.getManyLive(
            target.versionId,
            request.changes.map((c) => c.id),
          )
        ).map((e) => [e.id, e]),
      );
      const moved = request.changes.filter((c) => entries.get(c.id)?.generation !== c.generation);
      if (moved.length > 0) {
        await ctx.changeRequests.update(id, { status: 'stale', updatedAt: writer.timestamp });
        return { stale: moved.map((c) => entries.get(c.id)?.key ?? c.id) };
      }
      for (const change of request.changes) {
        const entry = entries.get(change.id) as EntryRecord;
        if (change.unreadable) throw unreadableSecret(entry.key);
        const problem = checkValue(entry.valueType, change.rawValue, entry.enumDefinition);
        if (problem) throw AppError.invalid(`${entry.key} ${problem}.`, { [entry.key]: [problem] });
      }
      let rolloutId: string | null = null;
      if (rollout) {
        // The approved values, given to the instances step by step rather than at once.
        const changes = request.changes.map(({ id, rawValue, generation }) => ({ id, rawValue, generation }));
        ({ id: rolloutId } = await this.settings.rollouts.createWithWriter(
          ctx,
          writer,
          actor,
          target,
          { ...rollout, changes },
          changeRequest,
        ));
      } else {
        await writer.setValues(
          request.changes.map((change) => ({
            before: entries.get(change.id) as EntryRecord,
            rawValue: change.rawValue,
          })),
        );
      }
      await writer.commit();
      await ctx.changeRequests.update(id, {
        status: 'applied',
        closedBy: actor.userId,
        updatedAt: writer.timestamp,
        ...(rolloutId ? { rolloutId } : {}),
      });
      const after = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
      await this.audit(ctx, actor, after, 'Applied', {
        after: { status: 'applied', approvers: counting.map((a) => a.userId), ...(rolloutId ? { rolloutId } : {}) },
      });
      return { applied: after };
    });
    if (outcome.short !== undefined) {
      throw AppError.conflict(
        `The change request has ${outcome.short} of the ${this.settings.requiredApprovals} approval(s) of its current changes it needs before it can be applied (an approval counts while its approver is an editor or owner who wrote none of it). Nothing was applied.`,
      );
    }
    if (outcome.stale) {
      throw AppError.conflict(
        `Changed since the change request was made: ${outcome.stale.slice(0, 20).join(', ')}. Nothing was applied; the request is now stale.`,
      );
    }
    return outcome.applied as ChangeRequestRecord;
  }

  /** Closes a request unapplied: rejected by an editor or owner, or withdrawn by its author. */
  close(caller: Caller, target: Target, id: string, how: 'reject' | 'withdraw'): Promise<ChangeRequestRecord> {
    return this.uow.write(async (ctx) => {
      const request = await requirePending(ctx, target, id, how === 'reject' ? 'rejected' : 'withdrawn');
      if (how === 'withdraw' && !isAuthor(caller, request)) {
        throw AppError.forbidden('Only its author may withdraw a change request; editors and owners reject it.');
      }
      if (how === 'reject') await requireServiceAccess(ctx, caller, target.serviceId, 'write');
      const status: ChangeRequestStatus = how === 'reject' ? 'rejected' : 'withdrawn';
      const actor = actorOfCaller(caller);
      await ctx.changeRequests.update(id, { status, closedBy: actor.userId, updatedAt: this.clock.nowMicros() });
      const after = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
      await this.audit(ctx, actor, after, how === 'reject' ? 'Rejected' : 'Withdrawn', { after: { status } });
      return after;
    });
  }

  private audit(
    ctx: WriteContext,
    actor: Actor,
    request: ChangeRequestRecord,
    action: 'Created' | 'Updated' | 'Approved' | 'Applied' | 'Rejected' | 'Withdrawn',
    changes: { before?: unknown; after?: unknown },
  ): Promise<void> {
    return ctx.audit.append({
      id: this.ids.newId(),
      serviceId: request.serviceId,
      entityType: 'ChangeRequest',
      entityId: request.id,
      versionId: request.versionId,
      action,
      ...actor,
      timestamp: this.clock.nowMicros(),
      changes,
    });
  }
}
