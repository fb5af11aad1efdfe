import {
  actorOfCaller,
  auditView,
  EntryWriter,
  requireSignedIn,
  requireService,
  UniqueViolation,
  versionDeletionNotice,
  type Actor,
  type Caller,
  type UnitOfWork,
  type VersionCaps,
  type VersionRecord,
  type WriteContext,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { createVersion } from './version-creation.js';

export interface VersionFields {
  readonly versionLabel: string;
  readonly description: string | null;
  /** Left out: unchanged (false for a new version). */
  readonly protected?: boolean;
}

/** What an update changes: a field left out keeps its value. */
export type VersionChanges = Partial<VersionFields>;

export class VersionCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly caps: VersionCaps,
  ) {}

  /**
   * A new version: empty, or (`copyFrom`, a version of the same service) with a copy of that
   * version's entries, values and details, in the same transaction.
   */
  async create(
    actor: Actor,
    serviceId: string,
    fields: VersionFields,
    copyFrom: string | null = null,
  ): Promise<VersionRecord> {
    try {
      return await this.uow.write(async (ctx) => {
        await requireService(ctx, serviceId);
        await requireFreeLabel(ctx, serviceId, fields.versionLabel);
        const source = copyFrom === null ? null : await ctx.versions.get(serviceId, copyFrom);
        if (source === undefined) {
          throw AppError.invalid(`There is no version ${copyFrom} in this service to start from.`, {
            copyFrom: ['is not a version of this service'],
          });
        }
        const now = this.clock.nowMicros();
        const version = await createVersion(
          ctx,
          { actor, ids: this.ids, nowMicros: now },
          {
            serviceId,
            versionLabel: fields.versionLabel,
            description: fields.description,
            protected: fields.protected ?? false,
            ...(source ? { copiedFrom: source.versionLabel } : {}),
          },
        );
        if (source) await this.copyEntries(ctx, actor, source, version, now);
        return version;
      });
    } catch (error) {
      // Two creators of one label at once: the unique index decides, the loser gets the same 409.
      throw error instanceof UniqueViolation ? duplicateLabel(fields.versionLabel) : error;
    }
  }

  /** The live entries of `source`, created in `target` as they are (one write: one audit record each). */
  private async copyEntries(
    ctx: WriteContext,
    actor: Actor,
    source: VersionRecord,
    target: VersionRecord,
    nowMicros: number,
  ): Promise<void> {
    const entries = await ctx.entries.listLive(source.id);
    if (entries.length === 0) return;
    const writer = await EntryWriter.open(ctx, {
      serviceId: target.serviceId,
      versionId: target.id,
      actor,
      nowMicros,
      ids: this.ids,
      caps: this.caps,
      // The version is being made: its protection starts after its first entries.
      protectedVersion: 'allow',
    });
    await writer.create(
      entries.map((e) => ({
        key: e.key,
        name: e.name,
        rawValue: e.rawValue,
        valueType: e.valueType,
        enumDefinition: e.enumDefinition,
        description: e.description,
        groupName: e.groupName,
        groupDescription: e.groupDescription,
        isSecret: e.isSecret,
        schema: e.schema,
      })),
    );
    await writer.commit();
  }

  async update(caller: Caller, serviceId: string, versionId: string, changes: VersionChanges): Promise<VersionRecord> {
    const actor = actorOfCaller(caller);
    let versionLabel = changes.versionLabel;
    try {
      return await this.uow.write(async (ctx) => {
        const before = await requireVersion(ctx, serviceId, versionId);
        // Protection is access: turning it off would let values change without review.
        if (changes.protected !== undefined && changes.protected !== before.protected) requireSignedIn(caller);
        versionLabel ??= before.versionLabel;
        if (before.versionLabel !== versionLabel) await requireFreeLabel(ctx, serviceId, versionLabel);
        const now = this.clock.nowMicros();
        const after = await ctx.versions.update(
          versionId,
          {
            versionLabel,
            description: changes.description === undefined ? before.description : changes.description,
            protected: changes.protected ?? before.protected,
          },
          now,
        );
        if (!after) throw versionNotFound(versionId);
        // Caches that look versions up by label must hear of a rename.
        const timestamp = (await ctx.versions.advanceClock(versionId, now))?.timestamp ?? now;
        ctx.recordChange({ kind: 'version-updated', serviceId, versionId, timestamp, entries: [] });
        await ctx.audit.append({
          id: this.ids.newId(),
          serviceId,
          entityType: 'Version',
          entityId: versionId,
          action: 'Updated',
          ...actor,
          timestamp: now,
          changes: { before: auditView(before), after: auditView(after) },
        });
        return after;
      });
    } catch (error) {
      throw error instanceof UniqueViolation ? duplicateLabel(versionLabel ?? '') : error;
    }
  }

  /** Deletes the version and its entries; its subscribers see every key deleted. */
  delete(actor: Actor, serviceId: string, versionId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const before = await requireVersion(ctx, serviceId, versionId);
      const now = this.clock.nowMicros();
      ctx.recordChange(await versionDeletionNotice(ctx, serviceId, versionId, now));
      ctx.report({
        type: 'version.deleted',
        serviceId,
        versionId,
        versionLabel: before.versionLabel,
        actor,
        timestamp: now,
        version: before,
      });
      await ctx.versions.delete(versionId);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Version',
        entityId: versionId,
        action: 'Deleted',
        ...actor,
        timestamp: now,
        changes: { before: auditView(before) },
      });
    });
  }
}

async function requireFreeLabel(ctx: WriteContext, serviceId: string, label: string): Promise<void> {
  if (await ctx.versions.findByLabel(serviceId, label)) throw duplicateLabel(label);
}

async function requireVersion(ctx: WriteContext, serviceId: string, versionId: string): Promise<VersionRecord> {
  const version = await ctx.versions.get(serviceId, versionId);
  if (!version) throw versionNotFound(versionId);
  return version;
}

function duplicateLabel(label: string): AppError {
  return AppError.alreadyExists(`A version labelled "${label}" already exists in this service.`);
}

function versionNotFound(versionId: string): AppError {
  return AppError.notFound(`Version ${versionId} was not found in this service.`);
}
