import { checkKey, checkValue } from '../../protocol.js';
import {
  actorOfCaller,
  EntryWriter,
  type Actor,
  type EntryMetadata,
  type EntryRecord,
  type Caller,
  type NewEntry,
  type UnitOfWork,
  type VersionCaps,
  type WriteContext,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';

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
      const writer = await this.writer(ctx, actor, serviceId, versionId);
      const [entry] = await writer.create([input]);
      await writer.commit();
      return entry as EntryRecord;
    });
  }

  /** Sets the values of several entries at once, all or nothing (the route checked the caller may write). */
  setValues(
    caller: Caller,
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
      // Opening the writer takes the version's clock first, which checks the version and locks it,
      // so the generation checks below cannot race.
      const writer = await this.writer(ctx, actorOfCaller(caller), serviceId, versionId);
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

      const updated: EntryRecord[] = [];
      for (const item of items) updated.push(await writer.setValue(found.get(item.id) as EntryRecord, item.rawValue));
      await writer.commit();
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
      const writer = await this.writer(ctx, actor, serviceId, versionId);
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
      const after = await writer.updateMetadata(before, metadata);
      await writer.commit();
      return after;
    });
  }

  delete(actor: Actor, serviceId: string, versionId: string, entryId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const writer = await this.writer(ctx, actor, serviceId, versionId);
      await writer.delete(await requireEntry(ctx, versionId, entryId));
      await writer.commit();
    });
  }

  /** A write of entries of a version of this service (404 otherwise), through the one entry writer. */
  private writer(ctx: WriteContext, actor: Actor, serviceId: string, versionId: string): Promise<EntryWriter> {
    return EntryWriter.open(ctx, {
      serviceId,
      versionId,
      actor,
      nowMicros: this.clock.nowMicros(),
      ids: this.ids,
      caps: this.caps,
    });
  }
}

async function requireEntry(ctx: WriteContext, versionId: string, entryId: string): Promise<EntryRecord> {
  const entry = await ctx.entries.getLive(versionId, entryId);
  if (!entry) throw AppError.notFound(`Entry ${entryId} was not found in this version.`);
  return entry;
}
