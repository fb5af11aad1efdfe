import { isUniqueViolation } from '../../db/database.js';
import type { UnitOfWork, WriteContext } from '../../db/unit-of-work.js';
import { microsToIso, type Clock } from '../../platform/clock.js';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { auditView } from '../audit/audit-view.js';
import type { Actor } from '../auth/identity.js';
import type { EntryRecord } from '../entries/entry-store.js';
import { checkKey, checkValue, isValueType } from '../entries/value-types.js';
import type { EntryChange } from '../realtime/change-hub.js';

/** One configuration class of an application, as the SDK declares it. */
export interface DeclaredClass {
  readonly name: string;
  readonly description: string | null;
  readonly entries: readonly DeclaredEntry[];
}

export interface DeclaredEntry {
  readonly key: string;
  readonly name: string;
  readonly description: string | null;
  readonly valueType: number;
  /** Allowed values of an Enum, pipe-separated. */
  readonly enumValues: string | null;
  /** The default value from the code. */
  readonly defaultValue: string | null;
}

const MAX_ATTEMPTS = 3;

/**
 * CreateVersion of the client SDK: registers the configuration an application declares as a version
 * of its service. New labels carry values over from the newest earlier version; existing labels only
 * gain the keys they miss. Two clients registering one label at once get one version.
 */
export class VersionRegistration {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async register(actor: Actor, serviceId: string, label: string, classes: readonly DeclaredClass[]): Promise<string> {
    const declared = validate(label, classes);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.write((ctx) => this.registerOnce(ctx, actor, serviceId, label, declared));
      } catch (error) {
        // Another client created the label first: the next attempt finds it and only adds keys.
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async registerOnce(
    ctx: WriteContext,
    actor: Actor,
    serviceId: string,
    label: string,
    declared: ReadonlyArray<DeclaredEntry & { groupName: string; groupDescription: string | null }>,
  ): Promise<string> {
    if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
    const now = this.clock.nowMicros();
    const existing = await ctx.versions.findByLabel(serviceId, label);

    let versionId: string;
    let previous = new Map<string, EntryRecord>();
    if (existing) {
      versionId = existing.id;
    } else {
      const earlier = await ctx.versions.list(serviceId);
      const newest = earlier.at(-1);
      if (newest) previous = new Map((await ctx.entries.listLive(newest.id)).map((e) => [e.key, e]));
      versionId = this.ids.newId();
      const version = {
        id: versionId,
        serviceId,
        versionLabel: label,
        description: `Registered by client SDK at ${microsToIso(now)}`,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.versions.insert(version);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Version',
        entityId: versionId,
        action: 'Created',
        ...actor,
        timestamp: now,
        changes: { after: auditView(version) },
      });
    }

    const missing: Array<{ declared: (typeof declared)[number]; tombstone: EntryRecord | undefined }> = [];
    for (const d of declared) {
      const current = await ctx.entries.findByKey(versionId, d.key);
      // Keys already there are left untouched; deleted ones count as missing.
      if (!current || current.deleted) missing.push({ declared: d, tombstone: current });
    }
    if (missing.length === 0) return versionId;

    const timestamp = (await ctx.versions.advanceClock(versionId, now)) as number;
    const added: EntryChange[] = [];
    for (const { declared: d, tombstone } of missing) {
      if (tombstone) await ctx.entries.purge(tombstone.id);
      const carried = previous.get(d.key);
      const entry: EntryRecord = {
        id: this.ids.newId(),
        versionId,
        key: d.key,
        name: d.name || d.key,
        rawValue: carried && carried.valueType === d.valueType ? carried.rawValue : d.defaultValue,
        valueType: d.valueType,
        enumDefinition: d.enumValues,
        description: d.description,
        groupName: d.groupName,
        groupDescription: d.groupDescription,
        generation: 1,
        createdAt: timestamp,
        updatedAt: timestamp,
        changedAt: timestamp,
        deleted: false,
      };
      await ctx.entries.insert(entry);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'Entry',
        entityId: entry.id,
        action: 'Created',
        ...actor,
        timestamp,
        changes: { after: auditView(entry) },
      });
      added.push({
        key: entry.key,
        value: entry.rawValue,
        deleted: false,
        generation: 1,
        valueType: entry.valueType,
        timestamp,
      });
    }
    if (added.length > 0) ctx.recordChange({ kind: 'entries', serviceId, versionId, timestamp, entries: added });
    return versionId;
  }
}

function validate(label: string, classes: readonly DeclaredClass[]) {
  const errors: FieldErrors = {};
  const fail = (field: string, message: string): void => {
    (errors[field] ??= []).push(message);
  };
  if (label.trim() === '' || label.length > 200) fail('version', 'must be 1 to 200 characters long');
  // PostgreSQL text cannot hold U+0000; refuse it up front on either database.
  const texts = (cls: DeclaredClass) => [
    cls.name,
    cls.description,
    ...cls.entries.flatMap((e) => [e.key, e.name, e.description, e.enumValues, e.defaultValue]),
  ];
  if (label.includes('\u0000') || classes.some((cls) => texts(cls).some((t) => t?.includes('\u0000')))) {
    fail('classes', 'text must not contain U+0000');
  }
  const seen = new Set<string>();
  const declared: Array<DeclaredEntry & { groupName: string; groupDescription: string | null }> = [];
  classes.forEach((cls, c) => {
    cls.entries.forEach((entry, e) => {
      const field = `classes[${c}].entries[${e}]`;
      const keyProblem = checkKey(entry.key);
      if (keyProblem) fail(`${field}.key`, keyProblem);
      else if (seen.has(entry.key)) fail(`${field}.key`, `"${entry.key}" is declared more than once`);
      seen.add(entry.key);
      if (!isValueType(entry.valueType)) fail(`${field}.valueType`, 'is not a known value type');
      else {
        const valueProblem = checkValue(entry.valueType, entry.defaultValue, entry.enumValues);
        if (valueProblem) fail(`${field}.value`, valueProblem);
      }
      declared.push({ ...entry, groupName: cls.name, groupDescription: cls.description });
    });
  });
  if (Object.keys(errors).length > 0) {
    const summary = Object.entries(errors)
      .map(([field, messages]) => `${field} ${messages.join(', ')}`)
      .join('; ');
    throw AppError.invalid(`The declared configuration is not valid: ${summary}.`, errors);
  }
  return declared;
}
