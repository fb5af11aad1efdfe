import { checkKey, checkValue, schemaProblem } from '../../protocol.js';
import {
  actorOfCaller,
  EntryWriter,
  hasPolicy,
  mayReveal,
  requireReveal,
  revealedRecord,
  unreadableSecret,
  type Actor,
  requireValidOverrides,
  type EntryMetadata,
  type EntryOverride,
  type EntryRecord,
  type Caller,
  type NewEntry,
  type UnitOfWork,
  type VersionCaps,
  type WriteContext,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { requireFitAndCurrent, type ValueSetItem } from './value-items.js';

export type { ValueSetItem };

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
    const badSchema = input.schema === null ? null : schemaProblem(input.schema);
    if (badSchema) errors.schema = [badSchema];
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

      requireFitAndCurrent(items, found);

      const updated = await writer.setValues(
        items.map((item) => ({ before: found.get(item.id) as EntryRecord, rawValue: item.rawValue })),
      );
      await writer.commit();
      return updated;
    });
  }

  /**
   * Updates display metadata, the default value and secrecy. Omitted fields keep their value (a
   * secret's too); only canAll may make a secret an ordinary entry again.
   */
  updateMetadata(
    caller: Caller,
    serviceId: string,
    versionId: string,
    entryId: string,
    change: Partial<EntryMetadata> & { generation: number },
  ): Promise<EntryRecord> {
    return this.uow.write(async (ctx) => {
      const writer = await this.writer(ctx, actorOfCaller(caller), serviceId, versionId);
      const before = await requireEntry(ctx, versionId, entryId);
      const isSecret = change.isSecret ?? before.isSecret;
      if (before.isSecret && !isSecret && !(caller.kind === 'user' && hasPolicy(caller.identity, 'canAll'))) {
        throw AppError.forbidden('Only admins (canAll) may turn a secret back into an ordinary entry.');
      }
      // Whether a secret's stored value meets new rules would tell something of it: only to those who may see it.
      const newSchema = change.schema !== undefined && JSON.stringify(change.schema) !== JSON.stringify(before.schema);
      if (newSchema && before.isSecret && change.rawValue === undefined && !mayReveal(caller)) {
        throw AppError.forbidden(
          `Changing the schema of the secret ${before.key} without sending its value needs canReveal: whether the stored value meets the new rules would tell something of it.`,
        );
      }
      if (before.unreadable && change.rawValue === undefined) {
        throw AppError.conflict(
          `The stored value of ${before.key} cannot be decrypted (altered, or its master key is not configured); send a new rawValue with the update.`,
        );
      }
      // Fields left out keep their value; the generation check below makes that safe.
      const metadata: EntryMetadata = {
        name: change.name ?? before.name,
        description: change.description !== undefined ? change.description : before.description,
        groupName: change.groupName !== undefined ? change.groupName : before.groupName,
        groupDescription: change.groupDescription !== undefined ? change.groupDescription : before.groupDescription,
        enumDefinition: change.enumDefinition !== undefined ? change.enumDefinition : before.enumDefinition,
        rawValue: change.rawValue !== undefined ? change.rawValue : before.rawValue,
        isSecret,
        schema: change.schema !== undefined ? change.schema : before.schema,
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

  /**
   * Sets an entry's overrides by label (docs/targeting.md), replacing the ones it had: a change of
   * the entry (generation + 1, 409 on a stale generation), audited OverridesSet, one event.
   */
  setOverrides(
    caller: Caller,
    serviceId: string,
    versionId: string,
    entryId: string,
    change: { overrides: readonly EntryOverride[]; generation: number },
  ): Promise<EntryRecord> {
    return this.uow.write(async (ctx) => {
      const writer = await this.writer(ctx, actorOfCaller(caller), serviceId, versionId);
      const before = await requireEntry(ctx, versionId, entryId);
      requireValidOverrides(before, change.overrides);
      if (before.generation !== change.generation) {
        throw AppError.conflict(
          `Generation mismatch for ${before.key}: sent ${change.generation}, current ${before.generation}.`,
        );
      }
      const after = await writer.setOverrides(before, change.overrides);
      await writer.commit();
      return after;
    });
  }

  /** A secret's value for a canReveal user; every reveal is audited (without the value). */
  reveal(caller: Caller, serviceId: string, versionId: string, entryId: string): Promise<EntryRecord> {
    requireReveal(caller);
    return this.uow.write(async (ctx) => {
      if (!(await ctx.versions.get(serviceId, versionId))) {
        throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      }
      const entry = await requireEntry(ctx, versionId, entryId);
      if (entry.unreadable) throw unreadableSecret(entry.key);
      await ctx.audit.append(revealedRecord(this.ids.newId(), caller, serviceId, entry, this.clock.nowMicros()));
      return entry;
    });
  }

  delete(actor: Actor, serviceId: string, versionId: string, entryId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const writer = await this.writer(ctx, actor, serviceId, versionId);
      await writer.delete([await requireEntry(ctx, versionId, entryId)]);
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
