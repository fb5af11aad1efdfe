import { AppError, type Violation } from '../platform/errors.js';
import type { IdGenerator } from '../platform/ids.js';
import type { AuditChanges, AuditRecord } from './audit.js';
import { auditChanges, type EntryAction } from './entry-audit.js';
import { entryChangeOf, type EntryChange } from './changes.js';
import { digestOf, ValidationNeeded } from './checked-writes.js';
import { requireSchema, valuesRefused, violationsOf } from './entry-schemas.js';
import type { EntryMetadata, EntryRecord, NewEntry } from './entries.js';
import type { EntryOverride, EntryRollout } from './targeting.js';
import { lockedByRollout } from './rollouts.js';
import { unreadableSecret } from './secrets.js';
import type { Actor } from './identity.js';
import type { WriteContext } from './stores.js';
import type { ReportedEntryChange } from './webhooks.js';
import {
  requireWithinVersionCaps,
  sizeChange,
  totalChange,
  type SizeChange,
  type VersionCaps,
} from './version-caps.js';

/** The refusal of a direct change of a protected version; it names the way that is open. */
export function protectedVersion(label: string, serviceId: string, versionId: string): AppError {
  return AppError.conflict(
    `Version ${label} is protected: its changes need a change request approved by another editor or owner. Open one with POST /api/configversions/${serviceId}/${versionId}/changerequests.`,
  );
}

/** The entry after a change at `timestamp`: `step` generations on (one); a new value (or metadata, which writes its value) is readable. */
function nextOf(before: EntryRecord, change: Partial<EntryRecord>, timestamp: number, step = 1): EntryRecord {
  return {
    ...before,
    ...change,
    unreadable: false,
    generation: before.generation + step,
    updatedAt: timestamp,
    changedAt: timestamp,
  };
}

/** A change held by a rollout answers 409 naming it. */
function requireFree(entry: EntryRecord): void {
  if (entry.rollout) throw lockedByRollout(entry, entry.rollout.id);
}

/** The event of a rollout's move of an entry: its new state, and the state before (EntryChange.before). */
const rolloutEvent = (before: EntryRecord, after: EntryRecord): EntryChange => ({
  ...entryChangeOf(after),
  before: { generation: before.generation, rollout: before.rollout ?? null },
});

/**
 * An entry deleted at `timestamp`: no value, one generation on. A client that remembers the
 * deletion never takes a later change for an old one, whether the entry alone or its whole version
 * was deleted (core's versionDeletionNotice).
 */
export const tombstoneOf = (before: EntryRecord, timestamp: number): EntryRecord =>
  nextOf(before, { rawValue: null, overrides: [], deleted: true }, timestamp);

export type { EntryAction };

export interface EntryWriterOptions {
  readonly serviceId: string;
  readonly versionId: string;
  /** Who makes the change, for the audit records. */
  readonly actor: Actor;
  readonly nowMicros: number;
  readonly ids: IdGenerator;
  readonly caps: VersionCaps;
  /**
   * Writes a protected version too: an approved change request applied, keys an application adds at
   * registration. Every other write of a protected version is refused (409).
   */
  readonly protectedVersion?: 'refuse' | 'allow';
  /** The change request a write applies, named in each entry's audit record. */
  readonly changeRequest?: AuditChanges['changeRequest'];
}

/**
 * The one place an entry changes. Every write of entries (the REST commands, restores and imports,
 * registrations by CreateVersion) opens a writer on its version inside its transaction and goes
 * through it, so the rules hold everywhere alike:
 * - the version's change clock advances once per write (locking the version until the commit), and
 *   every record and event of the write carries that timestamp;
 * - each change adds 1 to the entry's generation; a deletion leaves a tombstone one generation on,
 *   and a key created again continues after its tombstone (never back to 1, which clients that
 *   remember the deletion would take for an old change);
 * - every change writes its audit record in the same transaction;
 * - the version's size counters move with each change, and the write is refused when it would pass
 *   Versions:MaxEntries or Versions:MaxBytes;
 * - every value written (and every entry's schema changed) is checked against the entry's schema,
 *   and the whole write is refused with every rule broken (`violations`) when any value breaks one;
 * - the service's enabled validators pass the change before it commits (`checkedWrites`);
 * - an entry a rollout holds changes only through the rollout (409 naming it), its overrides aside;
 * - the whole write becomes one change notice (one stream event), recorded by `commit`.
 */
export class EntryWriter {
  private readonly events: EntryChange[] = [];
  private readonly sizes: SizeChange[] = [];
  /** Each change with both sides, for webhooks. */
  private readonly reported: ReportedEntryChange[] = [];
  /** The new values a rollout starts with: validators pass them as they do changes. */
  private readonly proposed: ReportedEntryChange[] = [];
  /** The rules the write's values break: `commit` refuses the write when there is any. */
  private readonly violations: Violation[] = [];

  private constructor(
    private readonly ctx: WriteContext,
    private readonly options: EntryWriterOptions,
    /** The version's change-clock value of this write. */
    readonly timestamp: number,
    /** The version's label, as the change's webhook deliveries name it. */
    readonly versionLabel: string,
    /** The version is protected (the write was opened with `protectedVersion: 'allow'`). */
    readonly versionProtected: boolean,
    /** The write's ids: the same in every run of it (`WriteContext.ids`). */
    private readonly ids: IdGenerator,
  ) {}

  /** Opens a write on a version of the service: advances its clock, or answers 404. */
  static async open(ctx: WriteContext, options: EntryWriterOptions): Promise<EntryWriter> {
    const { serviceId, versionId } = options;
    const clock = await ctx.versions.advanceClock(versionId, options.nowMicros, serviceId);
    if (clock === undefined) throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    if (clock.protected && options.protectedVersion !== 'allow')
      throw protectedVersion(clock.label, serviceId, versionId);
    return new EntryWriter(ctx, options, clock.timestamp, clock.label, clock.protected, ctx.ids ?? options.ids);
  }

  /**
   * Creates entries for keys the version does not hold live (a live key answers 409). A key deleted
   * before gets a new entry whose generation continues after its tombstone's, which it replaces.
   */
  async create(inputs: readonly NewEntry[], action: EntryAction = 'Created'): Promise<EntryRecord[]> {
    const { versionId } = this.options;
    const rows = new Map(
      (
        await this.ctx.entries.findByKeys(
          versionId,
          inputs.map((input) => input.key),
        )
      ).map((row) => [row.key, row]),
    );
    const live = inputs.filter((input) => rows.get(input.key)?.deleted === false).map((input) => input.key);
    if (live.length > 0) {
      const named = live.slice(0, 20).map((key) => `"${key}"`);
      throw AppError.alreadyExists(
        `An entry with key ${named.join(', ')}${live.length > named.length ? ` (and ${live.length - named.length} more)` : ''} already exists in this version.`,
      );
    }
    for (const input of inputs) {
      const schema = requireSchema(input.schema, { key: input.key });
      const checked = { key: input.key, id: null, valueType: input.valueType, schema, isSecret: input.isSecret };
      this.check(checked, input.rawValue);
      this.checkOverrides(checked, input.overrides ?? []);
    }
    const tombstones = inputs.flatMap((input) => rows.get(input.key) ?? []);
    await this.ctx.entries.purge(...tombstones.map((row) => row.id));
    const entries = inputs.map((input): EntryRecord => ({
      id: this.ids.newId(),
      versionId,
      ...input,
      overrides: input.overrides ?? [],
      generation: (rows.get(input.key)?.generation ?? 0) + 1,
      createdAt: this.timestamp,
      updatedAt: this.timestamp,
      changedAt: this.timestamp,
      deleted: false,
    }));
    await this.ctx.entries.insertMany(entries);
    await this.ctx.audit.appendMany(entries.map((entry) => this.auditRecord(action, null, entry)));
    for (const entry of entries) this.record(action, null, entry);
    return entries;
  }

  /**
   * Gives entries new values: one statement for the values and one for their audit records, whatever
   * their number (a value set, a restore, an import, an applied change request). Answers the entries
   * after, in the order given.
   */
  async setValues(
    changes: readonly {
      readonly before: EntryRecord;
      readonly rawValue: string | null;
      /** New overrides with the value (an import's); absent: the entry keeps its own. */
      readonly overrides?: readonly EntryOverride[];
    }[],
    action: EntryAction = 'ValueSet',
  ): Promise<EntryRecord[]> {
    for (const { before } of changes) requireFree(before);
    const afters = changes.map(({ before, rawValue, overrides }) =>
      this.next(before, { rawValue, overrides: overrides ?? before.overrides }),
    );
    for (const after of afters) {
      this.check(after, after.rawValue);
      this.checkOverrides(after, after.overrides);
    }
    await this.writeValues(afters);
    await this.ctx.audit.appendMany(
      changes.map(({ before }, i) => this.auditRecord(action, before, afters[i] ?? null)),
    );
    changes.forEach(({ before }, i) => this.record(action, before, afters[i] as EntryRecord));
    return afters;
  }

  /**
   * Changes an entry's name, description, group, allowed values, default value or secrecy (never its
   * type). An entry turning secret has every stored copy of its earlier values sealed too.
   */
  async updateMetadata(before: EntryRecord, metadata: EntryMetadata): Promise<EntryRecord> {
    requireFree(before);
    const after = this.next(before, { ...metadata, schema: requireSchema(metadata.schema, { key: before.key }) });
    // A new schema is checked against the value the entry keeps, as much as a new value against its schema.
    this.check(after, after.rawValue);
    this.checkOverrides(after, after.overrides);
    if (metadata.isSecret && !before.isSecret) await this.ctx.secrets.sealHistoryOf(before);
    await this.ctx.entries.setMetadata(before.id, {
      ...metadata,
      overrides: after.overrides,
      generation: after.generation,
      changedAt: this.timestamp,
    });
    await this.ctx.audit.append(this.auditRecord('Updated', before, after));
    this.record('Updated', before, after);
    return after;
  }

  /**
   * Gives an entry new overrides (docs/targeting.md): a change of the entry like a value set, one
   * generation on, its override values checked like values, audited `OverridesSet`.
   */
  async setOverrides(before: EntryRecord, overrides: readonly EntryOverride[]): Promise<EntryRecord> {
    const after = this.next(before, { overrides });
    this.checkOverrides(after, overrides);
    await this.ctx.entries.setOverrides(before.id, {
      overrides,
      isSecret: after.isSecret,
      generation: after.generation,
      changedAt: this.timestamp,
    });
    await this.ctx.audit.append(this.auditRecord('OverridesSet', before, after));
    this.record('OverridesSet', before, after);
    return after;
  }

  /**
   * Deletes entries: each stays as a tombstone, so a subscriber's backfill reports the deletion. One
   * statement for the rows and one for their audit records, whatever their number.
   */
  async delete(befores: readonly EntryRecord[], action: EntryAction = 'Deleted'): Promise<void> {
    for (const before of befores) requireFree(before);
    const tombstones = befores.map((before) => tombstoneOf(before, this.timestamp));
    await this.ctx.entries.markDeleted(
      tombstones.map((t) => ({ id: t.id, generation: t.generation, changedAt: this.timestamp })),
    );
    await this.ctx.audit.appendMany(befores.map((before) => this.auditRecord(action, before, null)));
    befores.forEach((before, i) => {
      this.events.push(entryChangeOf(tombstones[i] as EntryRecord));
      this.sizes.push(sizeChange(before, null));
      this.reported.push({ action, before, after: null });
    });
  }

  /**
   * Puts a rollout on entries or moves it (docs/rollouts.md): each entry's slot (its new value, the
   * share of instances in) changes, never its value or generation; no audit record of the entries
   * (the rollout has its own). Each event carries the state before, so a stream sends an instance
   * only what changes for it (core's alreadyHas).
   */
  async moveRollout(moves: readonly { readonly before: EntryRecord; readonly rollout: EntryRollout }[]): Promise<void> {
    for (const { before, rollout } of moves) {
      if (before.rollout && before.rollout.id !== rollout.id) throw lockedByRollout(before, before.rollout.id);
      this.check(before, rollout.rawValue);
      if (!before.rollout) {
        const after = { ...before, rawValue: rollout.rawValue, generation: before.generation + 1, rollout };
        this.proposed.push({ action: 'RolloutCreated', before, after });
      }
    }
    await this.ctx.entries.setRollouts(
      moves.map(({ before, rollout }) => ({
        id: before.id,
        rollout,
        isSecret: before.isSecret,
        changedAt: this.timestamp,
      })),
    );
    for (const { before, rollout } of moves) {
      const after: EntryRecord = { ...before, rollout, changedAt: this.timestamp };
      this.events.push(rolloutEvent(before, after));
    }
  }

  /**
   * Ends a rollout on its entries: `completed` makes its new values the entries' values (generation
   * + 1, the generation its instances already have: they are sent nothing again); `rolled_back`
   * keeps their values and moves them two generations on, past the new values' generation, so every
   * instance that got a new value takes the old one back. Audited on each entry.
   */
  async endRollout(befores: readonly EntryRecord[], outcome: 'completed' | 'rolled_back'): Promise<EntryRecord[]> {
    if (outcome === 'completed') {
      // Never completes as "no value": a new value the server cannot decrypt is refused (409).
      const unreadable = befores.filter((before) => before.rollout?.unreadable).map((before) => before.key);
      if (unreadable.length > 0) throw unreadableSecret(unreadable);
    }
    const afters = befores.map((before) => {
      const rollout = before.rollout as EntryRollout;
      return outcome === 'completed'
        ? nextOf(before, { rawValue: rollout.rawValue, rollout: null }, this.timestamp)
        : // Rolled back, the entry keeps its value, unreadable or not (writeValues leaves it stored).
          { ...nextOf(before, { rollout: null }, this.timestamp, 2), unreadable: before.unreadable };
    });
    await this.writeValues(afters);
    const action = outcome === 'completed' ? 'RolloutCompleted' : 'RolloutRolledBack';
    await this.ctx.audit.appendMany(befores.map((before, i) => this.auditRecord(action, before, afters[i] ?? null)));
    befores.forEach((before, i) => {
      const after = afters[i] as EntryRecord;
      this.events.push(outcome === 'completed' ? rolloutEvent(before, after) : entryChangeOf(after));
    });
    return afters;
  }

  /**
   * Ends the write: refuses it (400 with every violation) when a value breaks its entry's schema,
   * checks the version's caps against everything it changed (a refusal rolls the whole transaction
   * back), records one change notice holding every changed entry, in order, and
   * reports the same changes to webhooks as one `entry.changed` (one delivery per webhook).
   */
  async commit(): Promise<void> {
    const { serviceId, versionId, caps, actor } = this.options;
    if (this.violations.length > 0) throw valuesRefused(this.violations);
    await requireWithinVersionCaps(this.ctx, caps, versionId, totalChange(this.sizes));
    if (this.events.length === 0) return;
    await this.requireValidated();
    this.ctx.recordChange({ kind: 'entries', serviceId, versionId, timestamp: this.timestamp, entries: this.events });
    // A rollout's moves are reported as the rollout's own events, not as changes of entries.
    if (this.reported.length === 0) return;
    this.ctx.report({
      type: 'entry.changed',
      serviceId,
      versionId,
      versionLabel: this.versionLabel,
      actor,
      timestamp: this.timestamp,
      changes: this.reported,
    });
  }

  /**
   * The service's enabled validators must have passed exactly this change (docs/validation.md):
   * otherwise the write is rolled back and asked about (`ValidationNeeded`, `checkedWrites`).
   */
  private async requireValidated(): Promise<void> {
    const { serviceId, versionId, actor } = this.options;
    const changes = [...this.reported, ...this.proposed];
    if (changes.length === 0) return;
    const validators = await this.ctx.validators.enabled(serviceId);
    if (validators.length === 0) return;
    const request = { serviceId, versionId, versionLabel: this.versionLabel, actor, changes };
    const digest = digestOf(request);
    if (this.ctx.validated?.has(digest) !== true) throw new ValidationNeeded(validators, request, digest);
  }

  /** Notes the rules a value breaks (the write goes on, so that one refusal names them all). */
  private check(entry: Parameters<typeof violationsOf>[0], rawValue: string | null): void {
    if (entry.schema !== null) this.violations.push(...violationsOf(entry, rawValue));
  }

  /** Notes the rules the overrides' values break, each violation naming its override. */
  private checkOverrides(entry: Parameters<typeof violationsOf>[0], overrides: readonly EntryOverride[]): void {
    if (entry.schema === null) return;
    overrides.forEach((o, i) => {
      for (const v of violationsOf(entry, o.rawValue)) {
        this.violations.push({ ...v, message: `override ${i + 1}: ${v.message}` });
      }
    });
  }

  /** The entries' new values in one statement (a rollout on them ends with it). */
  private writeValues(afters: readonly EntryRecord[]): Promise<void> {
    return this.ctx.entries.setValues(
      afters.map((after) => ({
        id: after.id,
        rawValue: after.rawValue,
        overrides: after.overrides,
        rollout: null,
        isSecret: after.isSecret,
        generation: after.generation,
        changedAt: this.timestamp,
        ...(after.unreadable ? { keepValue: true } : {}),
      })),
    );
  }

  private next(before: EntryRecord, change: Partial<EntryRecord>): EntryRecord {
    return nextOf(before, change, this.timestamp);
  }

  private record(action: EntryAction, before: EntryRecord | null, after: EntryRecord): void {
    this.events.push(entryChangeOf(after));
    this.sizes.push(sizeChange(before, after));
    this.reported.push({ action, before, after });
  }

  /** An entry's audit record carries its version and key, and the change's time on the version clock. */
  private auditRecord(
    action: EntryAction,
    before: EntryRecord | null,
    after: EntryRecord | null,
  ): Omit<AuditRecord, 'num'> {
    const entry = (after ?? before) as EntryRecord;
    return {
      id: this.ids.newId(),
      serviceId: this.options.serviceId,
      entityType: 'Entry',
      entityId: entry.id,
      versionId: this.options.versionId,
      entryKey: entry.key,
      action,
      ...this.options.actor,
      timestamp: this.timestamp,
      changes: {
        ...auditChanges(action, before, after),
        ...(this.options.changeRequest ? { changeRequest: this.options.changeRequest } : {}),
      },
    };
  }
}
