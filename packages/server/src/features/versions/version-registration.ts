import {
  checkKey,
  checkValue,
  describeViolations,
  exceedsLength,
  isValueType,
  MAX_SCHEMA_BYTES,
  schemaProblem,
  schemaViolations,
} from '../../protocol.js';
import {
  EntryWriter,
  requireService,
  UniqueViolation,
  type Actor,
  violationsOf,
  type EntryRecord,
  type EntrySchema,
  type NewEntry,
  type UnitOfWork,
  type VersionCaps,
  type WriteContext,
} from '../../core/index.js';
import { microsToIso, type Clock } from '../../platform/clock.js';
import { dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { ENTRY_LIMITS } from '../entries/index.js';
import { createVersion } from './version-creation.js';

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
  /** Declared secret (`is_secret`): created as a secret entry. */
  readonly isSecret?: boolean;
  /** The JSON Schema its value must meet, as JSON text (`schema`); null for none. */
  readonly schema?: string | null;
}

const MAX_ATTEMPTS = 3;

/** Entries one CreateVersion may declare: far above any application's configuration, and bounded. */
export const MAX_DECLARED_ENTRIES = 5000;

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
    private readonly caps: VersionCaps,
  ) {}

  async register(actor: Actor, serviceId: string, label: string, classes: readonly DeclaredClass[]): Promise<string> {
    const declared = validate(label, classes);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.write((ctx) => this.registerOnce(ctx, actor, serviceId, label, declared));
      } catch (error) {
        // Another client created the label first: the next attempt finds it and only adds keys.
        if (!(error instanceof UniqueViolation) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async registerOnce(
    ctx: WriteContext,
    actor: Actor,
    serviceId: string,
    label: string,
    declared: readonly Declared[],
  ): Promise<string> {
    await requireService(ctx, serviceId);
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
      const version = await createVersion(
        ctx,
        { actor, ids: this.ids, nowMicros: now },
        {
          serviceId,
          versionLabel: label,
          description: `Registered by client SDK at ${registrationTime(now)}`,
          protected: false,
        },
      );
      versionId = version.id;
    }

    // Keys already there are left untouched; deleted ones (tombstones) count as missing.
    const candidates = await missingKeys(ctx, versionId, declared);
    if (candidates.length === 0) return versionId;
    const writer = await EntryWriter.open(ctx, {
      serviceId,
      versionId,
      actor,
      nowMicros: now,
      ids: this.ids,
      caps: this.caps,
      // An application must start whatever the version's protection: it only adds the keys it
      // declares, without values on a protected version.
      protectedVersion: 'allow',
    });
    // Another registration of the label may have added them meanwhile: looked at again under the
    // version's lock, which the writer holds from here to the commit.
    const missing = await missingKeys(ctx, versionId, candidates);
    await writer.create(
      missing.map((d): NewEntry => {
        const carried = previous.get(d.key);
        return {
          key: d.key,
          name: d.name || d.key,
          // A protected version's values change only through an approved change request: a key an
          // application adds there has no value, and the SDK reads its declared default for null.
          rawValue: writer.versionProtected ? null : carriedValue(carried, d) ? carried.rawValue : d.defaultValue,
          valueType: d.valueType,
          enumDefinition: d.enumValues,
          description: d.description,
          groupName: d.groupName,
          groupDescription: d.groupDescription,
          isSecret: d.isSecret === true || carried?.isSecret === true,
          schema: d.parsedSchema,
        };
      }),
    );
    await writer.commit();
    return versionId;
  }
}

/**
 * A key of the newest earlier version passes its value on when it has the same type and the value
 * meets the schema the application declares now (else the new key starts from the declared default).
 */
function carriedValue(carried: EntryRecord | undefined, d: Declared): carried is EntryRecord {
  if (!carried || carried.valueType !== d.valueType) return false;
  const entry = { key: d.key, id: null, valueType: d.valueType, schema: d.parsedSchema, isSecret: true };
  return violationsOf(entry, carried.rawValue).length === 0;
}

type Declared = DeclaredEntry & {
  groupName: string;
  groupDescription: string | null;
  /** `schema` parsed and checked. */
  parsedSchema: EntrySchema | null;
};

/** The declared keys the version does not hold live. */
async function missingKeys<T extends { readonly key: string }>(
  ctx: WriteContext,
  versionId: string,
  declared: readonly T[],
): Promise<T[]> {
  const missing: T[] = [];
  for (const chunk of chunks(declared)) {
    const rows = await ctx.entries.findByKeys(
      versionId,
      chunk.map((d) => d.key),
    );
    const live = new Set(rows.filter((e) => !e.deleted).map((e) => e.key));
    missing.push(...chunk.filter((d) => !live.has(d.key)));
  }
  return missing;
}

/** Rows per statement: few round trips, and short enough to let other work in between. */
const CHUNK = 200;

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

function validate(label: string, classes: readonly DeclaredClass[]) {
  const errors = dictionary<string[]>();
  const fail = (field: string, message: string): void => {
    (errors[field] ??= []).push(message);
  };
  if (label.trim() === '' || exceedsLength(label, 200)) fail('version', 'must be 1 to 200 characters long');
  const declaredCount = classes.reduce((n, cls) => n + cls.entries.length, 0);
  if (declaredCount > MAX_DECLARED_ENTRIES || classes.length > MAX_DECLARED_ENTRIES) {
    throw AppError.invalid(
      `A version may declare at most ${MAX_DECLARED_ENTRIES} entries in one CreateVersion (got ${declaredCount}).`,
      { classes: [`must declare at most ${MAX_DECLARED_ENTRIES} entries`] },
    );
  }
  const tooLong = (field: string, text: string | null, max: number): void => {
    if (text !== null && exceedsLength(text, max)) fail(field, `must be at most ${max} characters long`);
  };
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
  const declared: Declared[] = [];
  classes.forEach((cls, c) => {
    tooLong(`classes[${c}].name`, cls.name, ENTRY_LIMITS.groupName);
    tooLong(`classes[${c}].description`, cls.description, ENTRY_LIMITS.groupDescription);
    cls.entries.forEach((entry, e) => {
      const field = `classes[${c}].entries[${e}]`;
      tooLong(`${field}.name`, entry.name, ENTRY_LIMITS.name);
      tooLong(`${field}.description`, entry.description, ENTRY_LIMITS.description);
      tooLong(`${field}.enumValues`, entry.enumValues, ENTRY_LIMITS.enumDefinition);
      tooLong(`${field}.value`, entry.defaultValue, ENTRY_LIMITS.rawValue);
      const keyProblem = checkKey(entry.key);
      if (keyProblem) fail(`${field}.key`, `"${entry.key}" ${keyProblem}`);
      else if (seen.has(entry.key)) fail(`${field}.key`, `"${entry.key}" is declared more than once`);
      seen.add(entry.key);
      const parsedSchema = declaredSchema(entry, (message) => fail(`${field}.schema`, `of ${entry.key} ${message}`));
      if (!isValueType(entry.valueType)) fail(`${field}.valueType`, 'is not a known value type');
      else {
        const valueProblem = checkValue(entry.valueType, entry.defaultValue, entry.enumValues);
        if (valueProblem) fail(`${field}.value`, valueProblem);
        else if (parsedSchema !== null) {
          const broken = schemaViolations(parsedSchema, entry.valueType, entry.defaultValue);
          if (broken.length > 0)
            fail(`${field}.value`, `of ${entry.key} breaks its schema: ${describeViolations(broken)}`);
        }
      }
      // SDKs send "" where they mean "no allowed values" (a non-Enum key): stored as null.
      declared.push({
        ...entry,
        enumValues: entry.enumValues || null,
        groupName: cls.name,
        groupDescription: cls.description,
        parsedSchema,
      });
    });
  });
  if (Object.keys(errors).length > 0) {
    // A summary of the first problems: the message must stay readable (and fit a trailer).
    const summary = Object.entries(errors)
      .slice(0, 5)
      .map(([field, messages]) => `${field} ${messages.join(', ')}`)
      .join('; ');
    throw AppError.invalid(`The declared configuration is not valid: ${summary}.`, errors);
  }
  return declared;
}

/** A declared schema parsed and checked (`fail` is told what is wrong with it); null for none. */
function declaredSchema(entry: DeclaredEntry, fail: (message: string) => void): EntrySchema | null {
  if (entry.schema === null || entry.schema === undefined) return null;
  if (exceedsLength(entry.schema, MAX_SCHEMA_BYTES)) {
    fail(`must be at most ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`);
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.schema);
  } catch {
    fail('is not JSON');
    return null;
  }
  const problem = schemaProblem(parsed);
  if (problem !== null) fail(problem);
  return problem === null ? (parsed as EntrySchema) : null;
}

/** When a version was registered, to the minute, as people read it: "2026-05-01 09:30 UTC". */
function registrationTime(micros: number): string {
  return `${microsToIso(micros).slice(0, 16).replace('T', ' ')} UTC`;
}
