import { checkKey, checkValue } from '@realtime-config/protocol';
import type { Stores, UnitOfWork, WriteContext } from '../../db/unit-of-work.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { auditView } from '../audit/index.js';
import { requireServiceAccess, userCaller } from '../access/index.js';
import { actorOf, hasPolicy, type Identity } from '../auth/index.js';
import type { EntryChange } from '../realtime/index.js';
import type { NewEntry } from './entry-commands.js';
import type { EntryRecord } from './entry-store.js';

/** One change of a plan (a restore, an import): by key, whatever the entry's id is now. */
export type PlannedChange =
  | { readonly kind: 'set'; readonly key: string; readonly rawValue: string | null }
  | { readonly kind: 'create'; readonly entry: NewEntry }
  | { readonly kind: 'delete'; readonly key: string }
  /** The key exists with another value type: it is deleted and created again. */
  | { readonly kind: 'recreate'; readonly entry: NewEntry };

export interface Plan {
  readonly changes: readonly PlannedChange[];
  /** Keys the plan looked at; their generations make its `basedOn` token. */
  readonly considered: readonly string[];
}

/** Builds a plan from the version's state, inside the transaction that applies it (or a consistent read). */
export type Planner = (stores: Stores, versionId: string) => Promise<Plan>;

export interface PlanItem {
  readonly key: string;
  readonly action: PlannedChange['kind'];
  readonly current: {
    readonly rawValue: string | null;
    readonly generation: number;
    readonly valueType: number;
  } | null;
  readonly next: { readonly rawValue: string | null; readonly valueType: number } | null;
}

export interface PlanOutcome {
  readonly changes: readonly PlanItem[];
  readonly unchanged: number;
  /** The generations the plan was made from; applying with it answers 409 if any has changed. */
  readonly basedOn: string;
  readonly applied: boolean;
}

/** Changes one plan may hold: as many entries as one registration declares. */
export const MAX_PLAN_CHANGES = 5000;
/** Changes written between two turns of the event loop. */
const CHUNK = 200;

const keyOf = (change: PlannedChange): string => ('entry' in change ? change.entry.key : change.key);

/** The generation (or absence) of every considered key, as an opaque token. */
function tokenOf(considered: readonly string[], current: ReadonlyMap<string, EntryRecord>): string {
  const state = [...new Set(considered)].sort().map((key) => [key, current.get(key)?.generation ?? null]);
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function parseToken(token: string): Map<string, number | null> {
  try {
    const state = JSON.parse(Buffer.from(token, 'base64url').toString()) as Array<[string, number | null]>;
    if (!Array.isArray(state)) throw new Error('not a list');
    return new Map(state.map(([key, generation]) => [String(key), generation === null ? null : Number(generation)]));
  } catch {
    throw AppError.invalid('basedOn is not a token from a dry run.', { basedOn: ['is not valid'] });
  }
}

async function liveByKey(stores: Stores, versionId: string, keys: readonly string[]) {
  const rows = await stores.entries.findByKeys(versionId, [...new Set(keys)]);
  return new Map(rows.filter((e) => !e.deleted).map((e) => [e.key, e]));
}

function describe(plan: Plan, current: ReadonlyMap<string, EntryRecord>, applied: boolean): PlanOutcome {
  const changes = plan.changes.map((change): PlanItem => {
    const entry = current.get(keyOf(change));
    return {
      key: keyOf(change),
      action: change.kind,
      current: entry ? { rawValue: entry.rawValue, generation: entry.generation, valueType: entry.valueType } : null,
      next:
        change.kind === 'delete'
          ? null
          : change.kind === 'set'
            ? { rawValue: change.rawValue, valueType: entry?.valueType ?? 0 }
            : { rawValue: change.entry.rawValue, valueType: change.entry.valueType },
    };
  });
  const changed = new Set(changes.map((c) => c.key));
  return {
    changes,
    unchanged: new Set(plan.considered.filter((k) => !changed.has(k))).size,
    basedOn: tokenOf(plan.considered, current),
    applied,
  };
}

/**
 * Multi-key changes computed from the version's state (restores, imports): a dry run shows what
 * would change and the generations it saw; applying recomputes the plan in one transaction, refuses
 * it (409) when any of those generations moved, and commits it as one batch: one audit record per
 * entry, one change notice (one stream event).
 */
export class EntryPlans {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  preview(serviceId: string, versionId: string, planner: Planner): Promise<PlanOutcome> {
    return this.uow.readConsistent(async (stores) => {
      if (!(await stores.versions.get(serviceId, versionId))) {
        throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      }
      const plan = await planner(stores, versionId);
      const current = await liveByKey(stores, versionId, plan.considered);
      // A dry run refuses what applying it would refuse, so a preview never promises a failing batch.
      requireWithinLimit(plan);
      requireValid(plan, current);
      return describe(plan, current, false);
    });
  }

  apply(
    identity: Identity,
    target: { serviceId: string; versionId: string },
    planner: Planner,
    options: { basedOn: string | null; action: 'Restored' | 'Imported' },
  ): Promise<PlanOutcome> {
    const { serviceId, versionId } = target;
    const expected = options.basedOn === null ? null : parseToken(options.basedOn);
    return this.uow.write(async (ctx) => {
      if (!(await ctx.versions.get(serviceId, versionId))) {
        throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      }
      await requireServiceAccess(ctx, userCaller(identity), serviceId, 'write');
      const canAll = hasPolicy(identity, 'canAll');
      // Taking the clock first locks the version: nothing changes between the plan and its writes.
      const timestamp = await ctx.versions.advanceClock(versionId, this.clock.nowMicros());
      if (timestamp === undefined) throw AppError.notFound(`Version ${versionId} was not found.`);
      const plan = await planner(ctx, versionId);
      const current = await liveByKey(ctx, versionId, plan.considered);
      if (expected) requireUnchanged(expected, plan, current);
      requireWithinLimit(plan);
      if (!canAll && plan.changes.some((c) => c.kind !== 'set')) {
        throw AppError.forbidden('Creating and deleting entries needs the canAll policy; only values may be changed.');
      }
      requireValid(plan, current);
      const changed = await this.write(
        ctx,
        identity,
        { serviceId, versionId, timestamp },
        plan,
        current,
        options.action,
      );
      if (changed.length > 0) ctx.recordChange({ kind: 'entries', serviceId, versionId, timestamp, entries: changed });
      return describe(plan, current, true);
    });
  }

  private async write(
    ctx: WriteContext,
    identity: Identity,
    at: { serviceId: string; versionId: string; timestamp: number },
    plan: Plan,
    current: ReadonlyMap<string, EntryRecord>,
    action: 'Restored' | 'Imported',
  ): Promise<EntryChange[]> {
    const { versionId, timestamp } = at;
    const events: EntryChange[] = [];
    const audit = (entry: EntryRecord, before: EntryRecord | undefined, after: EntryRecord | null) =>
      ctx.audit.append({
        id: this.ids.newId(),
        serviceId: at.serviceId,
        entityType: 'Entry',
        entityId: entry.id,
        versionId,
        entryKey: entry.key,
        action,
        ...actorOf(identity),
        timestamp,
        changes: { before: before ? auditView(before) : null, after: after ? auditView(after) : null },
      });
    const remove = async (before: EntryRecord) => {
      await ctx.entries.markDeleted(before.id, { generation: before.generation + 1, changedAt: timestamp });
      await audit(before, before, null);
      events.push({
        key: before.key,
        value: null,
        deleted: true,
        generation: before.generation + 1,
        valueType: before.valueType,
        timestamp,
      });
    };
    const create = async (input: NewEntry) => {
      const tombstone = await ctx.entries.findByKey(versionId, input.key);
      if (tombstone) await ctx.entries.purge(tombstone.id);
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
      await ctx.entries.insert(entry);
      await audit(entry, undefined, entry);
      events.push({
        key: entry.key,
        value: entry.rawValue,
        deleted: false,
        generation: 1,
        valueType: entry.valueType,
        timestamp,
      });
    };
    for (const [index, change] of plan.changes.entries()) {
      if (index > 0 && index % CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      const before = current.get(keyOf(change));
      if (change.kind === 'set' && before) {
        const after = {
          ...before,
          rawValue: change.rawValue,
          generation: before.generation + 1,
          updatedAt: timestamp,
          changedAt: timestamp,
        };
        await ctx.entries.setValue(before.id, {
          rawValue: change.rawValue,
          generation: after.generation,
          changedAt: timestamp,
        });
        await audit(after, before, after);
        events.push({
          key: after.key,
          value: after.rawValue,
          deleted: false,
          generation: after.generation,
          valueType: after.valueType,
          timestamp,
        });
      } else if (change.kind === 'delete' && before) {
        await remove(before);
      } else if (change.kind === 'create') {
        await create(change.entry);
      } else if (change.kind === 'recreate') {
        if (before) await remove(before);
        await create(change.entry);
      }
    }
    return events;
  }
}

function requireUnchanged(
  expected: Map<string, number | null>,
  plan: Plan,
  current: ReadonlyMap<string, EntryRecord>,
): void {
  const keys = new Set([...expected.keys(), ...plan.considered]);
  const moved = [...keys].filter((key) => (expected.get(key) ?? null) !== (current.get(key)?.generation ?? null));
  if (moved.length > 0) {
    throw AppError.conflict(
      `Changed since the dry run: ${moved
        .slice(0, 20)
        .map(
          (key) =>
            `${key} (was generation ${expected.get(key) ?? 'absent'}, now ${current.get(key)?.generation ?? 'absent'})`,
        )
        .join('; ')}. Run the dry run again.`,
    );
  }
}

function requireWithinLimit(plan: Plan): void {
  if (plan.changes.length > MAX_PLAN_CHANGES) {
    throw AppError.invalid(`A batch holds at most ${MAX_PLAN_CHANGES} changes (this one has ${plan.changes.length}).`);
  }
}

function requireValid(plan: Plan, current: ReadonlyMap<string, EntryRecord>): void {
  const errors: FieldErrors = {};
  for (const change of plan.changes) {
    const key = keyOf(change);
    let problem: string | null = null;
    if (change.kind === 'set') {
      const entry = current.get(key);
      problem = entry ? checkValue(entry.valueType, change.rawValue, entry.enumDefinition) : 'is not in this version';
    } else if (change.kind === 'create' || change.kind === 'recreate') {
      problem = checkKey(key) ?? checkValue(change.entry.valueType, change.entry.rawValue, change.entry.enumDefinition);
    }
    if (problem) (errors[key] ??= []).push(problem);
  }
  if (Object.keys(errors).length > 0) {
    const named = Object.entries(errors)
      .slice(0, 10)
      .map(([key, messages]) => `${key} ${messages.join(', ')}`)
      .join('; ');
    throw AppError.invalid(`Some values do not fit: ${named}.`, errors);
  }
}
