import { createHash } from 'node:crypto';
import {
  actorOfCaller,
  auditView,
  EntryWriter,
  requireServiceAccess,
  type Actor,
  type Caller,
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

/** What a change request holds at most: one batch value set. */
export const MAX_REQUESTED_CHANGES = 1000;

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
}

type Target = { readonly serviceId: string; readonly versionId: string };

/** States from which a request can still be approved, edited, rejected or withdrawn. */
const PENDING: readonly ChangeRequestStatus[] = ['open', 'approved', 'stale'];

/** The digest approvals are bound to: the same changes in any order give the same hash. */
function contentHashOf(changes: readonly RequestedChange[], cipher: SecretCipher): string {
  const canonical = [...changes]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => [c.id, c.isSecret ? ['secret', cipher.fingerprint(c.rawValue)] : c.rawValue, c.generation]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

const isAuthor = (caller: Caller, request: ChangeRequestRecord): boolean =>
  actorOfCaller(caller).userId === request.authorId;

/**
 * Change requests: reviewed value changes, the only way to change a protected version. One is
 * opened by an editor with the values it sets and the generations they were based on, approved by
 * others (never its author; Versions:RequiredApprovals of them), and applied as one batch: all
 * of it when no entry changed since, else nothing and it turns stale. An edit of its changes drops
 * every approval (approvals are bound to the changes' digest). Every step is audited.
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
      const actor = actorOfCaller(caller);
      const request: ChangeRequestRecord = {
        id: this.ids.newId(),
        ...target,
        title: input.title,
        description: input.description,
        authorId: actor.userId,
        authorName: actor.userName,
        status: 'open',
        changes,
        contentHash: contentHashOf(changes, this.settings.cipher),
        createdAt: now,
        updatedAt: now,
        closedBy: null,
        approvals: [],
      };
      await ctx.changeRequests.insert(request);
      await this.audit(ctx, actor, request, 'Created', { after: auditView(viewForAudit(request)) });
      return request;
    });
  }

  /** Edits a request (its author, or an owner); new changes drop every approval and reopen it. */
  update(caller: Caller, target: Target, id: string, input: ChangeRequestInput): Promise<ChangeRequestRecord> {
    requireWellFormed(input.changes);
    return this.uow.write(async (ctx) => {
      const before = await requirePending(ctx, target, id, 'edited');
      if (!isAuthor(caller, before)) await requireServiceAccess(ctx, caller, target.serviceId, 'manage');
      const changes = await requireCurrent(ctx, target.versionId, input.changes);
      const contentHash = contentHashOf(changes, this.settings.cipher);
      const changed = contentHash !== before.contentHash;
      if (changed) await ctx.changeRequests.clearApprovals(id);
      const status: ChangeRequestStatus = changed || before.status === 'stale' ? 'open' : before.status;
      const now = this.clock.nowMicros();
      await ctx.changeRequests.update(id, { ...input, changes, contentHash, status, updatedAt: now });
      const after = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
      await this.audit(ctx, actorOfCaller(caller), after, 'Updated', {
        before: auditView(viewForAudit(before)),
        after: auditView(viewForAudit(after)),
      });
      return after;
    });
  }

  /** An approval by an editor or owner other than the author; enough of them make it approved. */
  approve(caller: Caller, target: Target, id: string): Promise<ChangeRequestRecord> {
    return this.uow.write(async (ctx) => {
      const request = await requirePending(ctx, target, id, 'approved');
      if (caller.kind !== 'user') throw AppError.forbidden('Only a person may approve a change request.');
      if (isAuthor(caller, request)) throw AppError.forbidden('The author of a change request may not approve it.');
      if (request.status === 'stale') {
        throw AppError.conflict('The change request is stale: an entry changed since. Its author updates it first.');
      }
      const actor = actorOfCaller(caller);
      const now = this.clock.nowMicros();
      await ctx.changeRequests.addApproval(id, {
        userId: actor.userId,
        userName: actor.userName,
        approvedAt: now,
        contentHash: request.contentHash,
      });
      const approvals = request.approvals.filter((a) => a.userId !== actor.userId).length + 1;
      const status = approvals >= this.settings.requiredApprovals ? 'approved' : 'open';
      await ctx.changeRequests.update(id, { status, updatedAt: now });
      const after = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
      await this.audit(ctx, actor, after, 'Approved', { after: { status, approvals } });
      return after;
    });
  }

  /**
   * Applies an approved request as one batch with its generations. When any entry changed since,
   * nothing is applied, the request turns stale (that is kept) and the answer is 409.
   */
  async apply(caller: Caller, target: Target, id: string): Promise<ChangeRequestRecord> {
    const outcome = await this.uow.write(async (ctx) => {
      const request = await requireRequest(ctx, target, id);
      if (!isAuthor(caller, request)) await requireServiceAccess(ctx, caller, target.serviceId, 'write');
      if (request.status !== 'approved') {
        throw AppError.conflict(
          request.status === 'open' || request.status === 'stale'
            ? `The change request is ${request.status}: it needs ${this.settings.requiredApprovals} approval(s) of its current changes before it can be applied.`
            : `The change request is ${request.status}.`,
        );
      }
      const actor = actorOfCaller(caller);
      // Opening the writer locks the version: the generations checked below cannot move before the commit.
      const writer = await EntryWriter.open(ctx, {
        ...target,
        actor,
        nowMicros: this.clock.nowMicros(),
        ids: this.ids,
        caps: this.settings.caps,
        protectedVersion: 'allow',
        changeRequest: {
          id: request.id,
          title: request.title,
          approvers: request.approvals.map((a) => a.userId),
        },
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
        await writer.setValue(entry, change.rawValue);
      }
      await writer.commit();
      await ctx.changeRequests.update(id, { status: 'applied', closedBy: actor.userId, updatedAt: writer.timestamp });
      const after = (await ctx.changeRequests.get(target.versionId, id)) as ChangeRequestRecord;
      await this.audit(ctx, actor, after, 'Applied', {
        after: { status: 'applied', approvers: request.approvals.map((a) => a.userId) },
      });
      return { applied: after };
    });
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

function viewForAudit(request: ChangeRequestRecord) {
  return { title: request.title, description: request.description, status: request.status, changes: request.changes };
}

function requireWellFormed(changes: readonly RequestedChange[]): void {
  if (changes.length === 0)
    throw AppError.invalid('A change request changes at least one value.', { changes: ['is empty'] });
  if (changes.length > MAX_REQUESTED_CHANGES) {
    throw AppError.invalid(`A change request holds at most ${MAX_REQUESTED_CHANGES} changes.`, {
      changes: [`at most ${MAX_REQUESTED_CHANGES}`],
    });
  }
  const ids = new Set<string>();
  const twice = changes.filter((c) => ids.has(c.id) || !ids.add(c.id)).map((c) => c.id);
  if (twice.length > 0) {
    throw AppError.invalid(`The change request names an entry more than once: ${[...new Set(twice)].join(', ')}.`, {
      changes: ['names an entry more than once'],
    });
  }
}

async function requireVersion(ctx: WriteContext, target: Target): Promise<void> {
  if (!(await ctx.versions.get(target.serviceId, target.versionId))) {
    throw AppError.notFound(`Version ${target.versionId} was not found in service ${target.serviceId}.`);
  }
}

/**
 * Every change names a live entry of the version at its current generation, with a value of its type.
 * Answers the changes marked secret where their entry is (they are then sealed at rest).
 */
async function requireCurrent(
  ctx: WriteContext,
  versionId: string,
  changes: readonly RequestedChange[],
): Promise<RequestedChange[]> {
  const entries = new Map(
    (
      await ctx.entries.getManyLive(
        versionId,
        changes.map((c) => c.id),
      )
    ).map((e) => [e.id, e]),
  );
  const missing = changes.filter((c) => !entries.has(c.id)).map((c) => c.id);
  if (missing.length > 0) throw AppError.notFound(`Entries not found in this version: ${missing.join(', ')}.`);
  const problems = changes.flatMap((c) => {
    const entry = entries.get(c.id) as EntryRecord;
    const problem = checkValue(entry.valueType, c.rawValue, entry.enumDefinition);
    return problem ? [`${entry.key} ${problem}`] : [];
  });
  if (problems.length > 0) throw AppError.invalid(`Some values do not fit their entry type: ${problems.join('; ')}.`);
  const stale = changes.filter((c) => (entries.get(c.id) as EntryRecord).generation !== c.generation);
  if (stale.length > 0) {
    throw AppError.conflict(
      `Generation mismatch; the entries were changed meanwhile: ${stale
        .map(
          (c) =>
            `${(entries.get(c.id) as EntryRecord).key} (sent ${c.generation}, current ${(entries.get(c.id) as EntryRecord).generation})`,
        )
        .join('; ')}.`,
    );
  }
  return changes.map(({ id, rawValue, generation }) => ({
    id,
    rawValue,
    generation,
    ...((entries.get(id) as EntryRecord).isSecret ? { isSecret: true } : {}),
  }));
}

async function requireRequest(ctx: WriteContext, target: Target, id: string): Promise<ChangeRequestRecord> {
  await requireVersion(ctx, target);
  const request = await ctx.changeRequests.get(target.versionId, id);
  if (!request) throw AppError.notFound(`Change request ${id} was not found in this version.`);
  return request;
}

async function requirePending(ctx: WriteContext, target: Target, id: string, what: string) {
  const request = await requireRequest(ctx, target, id);
  if (!PENDING.includes(request.status)) {
    throw AppError.conflict(`The change request is ${request.status}; it can no longer be ${what}.`);
  }
  return request;
}
