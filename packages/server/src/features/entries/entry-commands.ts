import {
  actorOf,
  auditView,
  entryChangeOf,
  requireServiceAccess,
  userCaller,
  type Actor,
  type EntryMetadata,
  type EntryRecord,
  type Identity,
  type UnitOfWork,
  type WriteContext,
} from '../../core/index.js';
import { checkKey, checkValue } from '@realtime-config/protocol';
import type { Clock } from '../../platform/clock.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { requireWithinVersionCaps, sizeChange, totalChange, type VersionCaps } from './version-caps.js';

export interface NewEntry {
  readonly key: string;
  readonly name: string;
  readonly rawValue: string | null;
  readonly valueType: number;
  readonly enumDefinition: string | null;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
}

export interface ValueSetItem {
  readonly id: string;
  readonly rawValue: string | null;
  readonly generation: number;
}

export const MAX_BATCH_ITEMS = 1000;

export class EntryCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly caps: VersionCaps,
  ) {}

  create(actor: Actor, serviceId: string, versionId: string, input: NewEntry): Promise<EntryRecord> {
    const errors: FieldErrors = {};
    const keyProblem = checkKey(input.key);
    if (keyProblem) errors.key = [keyProblem];
    const valueProblem = checkValue(input.valueType, input.rawValue, input.enumDefinition);
    if (valueProblem) errors.rawValue = [valueProblem];
    if (Object.keys(errors).length > 0) {
      throw AppError.invalid(keyProblem ? `The key "${input.key}" ${keyProblem}.` : 'The entry is not valid.', errors);
    }

    return this.uow.write(async (ctx) => {
      const timestamp = await this.tick(ctx, serviceId, versionId);
      const existing = await ctx.entries.findByKey(versionId, input.key);
      if (existing && !existing.deleted) {
        throw AppError.alreadyExists(`An entry with key "${input.key}" already exists in this version.`);
      }
      // A key created again after its deletion is a new entry: the tombstone gives way, generation restarts at 1.
      if (existing) await ctx.entries.purge(existing.id);
      const entry: EntryRecord = {
        id: this.ids.newId(),
        versionId,
        ...input,
        generation: 1,
        createdAt: timestamp,
        updatedAt: timestamp,
        changedAt: timestamp,
        deleted: false,
      };
      await requireWithinVersionCaps(ctx, this.caps, versionId, sizeChange(null, entry));
      await ctx.entries.insert(entry);
      await this.audit(ctx, actor, { serviceId, entry, timestamp }, 'Created', { after: auditView(entry) });
      ctx.recordChange({ serviceId, versionId, timestamp, kind: 'entries', entries: [entryChangeOf(entry)] });
      return entry;
    });
  }

  /**
   * Sets the values of several entries at once, all or nothing. A canChange-only user must be a
   * member of the service (by id or e-mail).
   */
  setValues(
    identity: Identity,
    serviceId: string,
    versionId: string,
    items: readonly ValueSetItem[],
  ): Promise<EntryRecord[]> {
    if (items.length === 0)
      throw AppError.invalid('The batch is empty.', { items: ['must contain at least one item'] });
    if (items.length > MAX_BATCH_ITEMS) {
      throw AppError.invalid(`A batch holds at most ${MAX_BATCH_ITEMS} items.`, {
        items: [`at most ${MAX_BATCH_ITEMS} items`],
      });
    }
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    for (const item of items) (seen.has(item.id) ? duplicates : seen).add(item.id);
    if (duplicates.size > 0) {
      throw AppError.invalid(`The batch names an entry more than once: ${[...duplicates].join(', ')}.`, {
        id: [...duplicates].map((id) => `${id} appears more than once`),
      });
    }

    return this.uow.write(async (ctx) => {
      // Taking the clock first checks the version and locks it, so the generation checks below cannot race.
      const timestamp = await this.tick(ctx, serviceId, versionId);
      await requireServiceAccess(ctx, userCaller(identity), serviceId, 'write');
      const found = new Map((await ctx.entries.getManyLive(versionId, [...seen])).map((e) => [e.id, e]));
      const missing = items.filter((item) => !found.has(item.id)).map((item) => item.id);
      if (missing.length > 0) throw AppError.notFound(`Entries not found in this version: ${missing.join(', ')}.`);

      const errors = dictionary<string[]>();
      const stale: string[] = [];
      for (const [index, item] of items.entries()) {
        const entry = found.get(item.id) as EntryRecord;
        const problem = checkValue(entry.valueType, item.rawValue, entry.enumDefinition);
        if (problem) errors[`[${index}].rawValue`] = [`${entry.key} ${problem}`];
        if (entry.generation !== item.generation) {
          stale.push(`${entry.key} (${entry.id}: sent generation ${item.generation}, current ${entry.generation})`);
        }
      }
      if (Object.keys(errors).length > 0) throw AppError.invalid('Some values do not fit their entry type.', errors);
      if (stale.length > 0) {
        throw AppError.conflict(`Generation mismatch; the entries were changed meanwhile: ${stale.join('; ')}.`);
      }

      const actor = actorOf(identity);
      const changes = items.map((item) => {
        const before = found.get(item.id) as EntryRecord;
        const after: EntryRecord = {
          ...before,
          rawValue: item.rawValue,
          generation: before.generation + 1,
          updatedAt: timestamp,
          changedAt: timestamp,
        };
        return { before, after };
      });
      await requireWithinVersionCaps(
        ctx,
        this.caps,
        versionId,
        totalChange(changes.map(({ before, after }) => sizeChange(before, after))),
      );
      const updated: EntryRecord[] = [];
      for (const { before, after } of changes) {
        await ctx.entries.setValue(after.id, {
          rawValue: after.rawValue,
          generation: after.generation,
          changedAt: timestamp,
        });
        await this.audit(ctx, actor, { serviceId, entry: after, timestamp }, 'ValueSet', {
          before: { key: before.key, rawValue: before.rawValue, generation: before.generation },
          after: { key: after.key, rawValue: after.rawValue, generation: after.generation },
        });
        updated.push(after);
      }
      ctx.recordChange({ serviceId, versionId, timestamp, kind: 'entries', entries: updated.map(entryChangeOf) });
      return updated;
    });
  }

  updateMetadata(
    actor: Actor,
    serviceId: string,
    versionId: string,
    entryId: string,
    change: Partial<EntryMetadata> & { generation: number },
  ): Promise<EntryRecord> {
    return this.uow.write(async (ctx) => {
      const timestamp = await this.tick(ctx, serviceId, versionId);
      const before = await requireEntry(ctx, versionId, entryId);
      // Fields left out keep their value; the generation check below makes that safe.
      const metadata: EntryMetadata = {
        name: change.name ?? before.name,
        description: change.description !== undefined ? change.description : before.description,
        groupName: change.groupName !== undefined ? change.groupName : before.groupName,
        groupDescription: change.groupDescription !== undefined ? change.groupDescription : before.groupDescription,
        enumDefinition: change.enumDefinition !== undefined ? change.enumDefinition : before.enumDefinition,
        rawValue: change.rawValue !== undefined ? change.rawValue : before.rawValue,
      };
      const problem = checkValue(before.valueType, metadata.rawValue, metadata.enumDefinition);
      if (problem) throw AppError.invalid('The value does not fit the entry type.', { rawValue: [problem] });
      if (before.generation !== change.generation) {
        throw AppError.conflict(
          `Generation mismatch for ${before.key}: sent ${change.generation}, current ${before.generation}.`,
        );
      }
      const after: EntryRecord = {
        ...before,
        ...metadata,
        generation: before.generation + 1,
        updatedAt: timestamp,
        changedAt: timestamp,
      };
      await requireWithinVersionCaps(ctx, this.caps, versionId, sizeChange(before, after));
      await ctx.entries.setMetadata(entryId, { ...metadata, generation: after.generation, changedAt: timestamp });
      await this.audit(ctx, actor, { serviceId, entry: after, timestamp }, 'Updated', {
        before: auditView(before),
        after: auditView(after),
      });
      ctx.recordChange({ serviceId, versionId, timestamp, kind: 'entries', entries: [entryChangeOf(after)] });
      return after;
    });
  }

  delete(actor: Actor, serviceId: string, versionId: string, entryId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const timestamp = await this.tick(ctx, serviceId, versionId);
      const before = await requireEntry(ctx, versionId, entryId);
      const generation = before.generation + 1;
      await requireWithinVersionCaps(ctx, this.caps, versionId, sizeChange(before, null));
      await ctx.entries.markDeleted(entryId, { generation, changedAt: timestamp });
      await this.audit(ctx, actor, { serviceId, entry: before, timestamp }, 'Deleted', { before: auditView(before) });
      ctx.recordChange({
        serviceId,
        versionId,
        timestamp,
        kind: 'entries',
        entries: [{ key: before.key, value: null, deleted: true, generation, valueType: before.valueType, timestamp }],
      });
    });
  }

  /** Advances the clock of a version of this service (locking it until the commit), or answers 404. */
  private async tick(ctx: WriteContext, serviceId: string, versionId: string): Promise<number> {
    const ts = await ctx.versions.advanceClock(versionId, this.clock.nowMicros(), serviceId);
    if (ts === undefined) throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    return ts;
  }

  /** An entry's audit record carries its version and key, and the change's time on the version clock. */
  private audit(
    ctx: WriteContext,
    actor: Actor,
    change: { serviceId: string; entry: EntryRecord; timestamp: number },
    action: 'Created' | 'Updated' | 'Deleted' | 'ValueSet',
    changes: { before?: unknown; after?: unknown },
  ): Promise<void> {
    return ctx.audit.append({
      id: this.ids.newId(),
      serviceId: change.serviceId,
      entityType: 'Entry',
      entityId: change.entry.id,
      versionId: change.entry.versionId,
      entryKey: change.entry.key,
      action,
      ...actor,
      timestamp: change.timestamp,
      changes,
    });
  }
}

async function requireEntry(ctx: WriteContext, versionId: string, entryId: string): Promise<EntryRecord> {
  const entry = await ctx.entries.getLive(versionId, entryId);
  if (!entry) throw AppError.notFound(`Entry ${entryId} was not found in this version.`);
  return entry;
}
