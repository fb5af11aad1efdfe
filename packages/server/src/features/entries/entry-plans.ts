import {
  actorOfCaller,
  EntryWriter,
  mayReveal,
  requireServiceAccess,
  requireWithinVersionCaps,
  sizeChange,
  totalChange,
  type EntryOverride,
  type EntryRecord,
  type Caller,
  type NewEntry,
  type SizeChange,
  type Stores,
  type UnitOfWork,
  type ValidatorAnswer,
  type ValidatorCalls,
  type VersionCaps,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, type Violation } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import {
  changeViolations,
  plannedChanges,
  requireMayCheckSecrets,
  requireValid,
  validatorAnswers,
} from './plan-checks.js';
import { parseToken, requireUnchanged, tokenOf } from './plan-token.js';

/** One change of a plan (a restore, an import): by key, whatever the entry's id is now. */
export type PlannedChange =
  | {
      readonly kind: 'set';
      readonly key: string;
      readonly rawValue: string | null;
      /** The planner found the value equal to the entry's: it stays a change only for a caller who may not compare (`settle`). */
      readonly same?: boolean;
      /** The value was a secret's where it comes from (the past of a restore, the source of a promotion). */
      readonly secretValue?: boolean;
      /** The entry's new overrides (an import's, when they differ); absent: it keeps its own. */
      readonly overrides?: readonly EntryOverride[];
    }
  | { readonly kind: 'create'; readonly entry: NewEntry }
  | { readonly kind: 'delete'; readonly key: string }
  /** The key exists with another value type: it is deleted and created again. */
  | { readonly kind: 'recreate'; readonly entry: NewEntry };

export interface Plan {
  readonly changes: readonly PlannedChange[];
  /** Keys the plan looked at; their generations make its `basedOn` token. */
  readonly considered: readonly string[];
  /**
   * The next values are the caller's own (a file): a secret's shows no fingerprint, which would
   * tell whether a guessed value is the stored one.
   */
  readonly sentValues?: boolean;
}

/** Builds a plan from the version's state, inside the transaction that applies it (or a consistent read). */
export type Planner = (stores: Stores, versionId: string) => Promise<Plan>;

export interface PlanItem {
  readonly key: string;
  readonly action: PlannedChange['kind'];
  readonly current: {
    /** The entry's id: with its generation and the next value, a plan's value sets make a change request. */
    readonly id: string;
    readonly rawValue: string | null;
    readonly generation: number;
    readonly valueType: number;
    readonly isSecret: boolean;
    readonly unreadable?: boolean;
  } | null;
  readonly next: {
    readonly rawValue: string | null;
    readonly valueType: number;
    readonly isSecret: boolean;
    /** The caller sent this value (`Plan.sentValues`): a secret's is shown without a fingerprint. */
    readonly sent?: true;
  } | null;
  /** The rules of its entry's schema the next value breaks (applying the plan is then refused). */
  readonly violations: readonly Violation[];
}

export interface PlanOutcome {
  readonly changes: readonly PlanItem[];
  readonly unchanged: number;
  /** The generations the plan was made from; applying with it answers 409 if any has changed. */
  readonly basedOn: string;
  readonly applied: boolean;
  /** A dry run: what the service's enabled validators answered to the plan (none applied). */
  readonly validators: readonly ValidatorAnswer[];
}

/** Changes written between two turns of the event loop. */

const keyOf = (change: PlannedChange): string => ('entry' in change ? change.entry.key : change.key);

async function liveByKey(stores: Stores, versionId: string, keys: readonly string[]) {
  const rows = await stores.entries.findByKeys(versionId, [...new Set(keys)]);
  return new Map(rows.filter((e) => !e.deleted).map((e) => [e.key, e]));
}

function describe(
  plan: Plan,
  current: ReadonlyMap<string, EntryRecord>,
  at: { clock: number; applied: boolean },
): PlanOutcome {
  const changes = plan.changes.map((change): PlanItem => {
    const entry = current.get(keyOf(change));
    return {
      key: keyOf(change),
      action: change.kind,
      current: entry
        ? {
            id: entry.id,
            rawValue: entry.rawValue,
            generation: entry.generation,
            valueType: entry.valueType,
            isSecret: entry.isSecret,
            ...(entry.unreadable ? { unreadable: true } : {}),
          }
        : null,
      violations: changeViolations(change, entry),
      next:
        change.kind === 'delete'
          ? null
          : {
              ...(change.kind === 'set'
                ? {
                    rawValue: change.rawValue,
                    valueType: entry?.valueType ?? 0,
                    isSecret: entry?.isSecret === true || change.secretValue === true,
                  }
                : {
                    rawValue: change.entry.rawValue,
                    valueType: change.entry.valueType,
                    isSecret: change.entry.isSecret,
                  }),
              ...(plan.sentValues ? { sent: true as const } : {}),
            },
    };
  });
  const changed = new Set(changes.map((c) => c.key));
  return {
    changes,
    unchanged: new Set(plan.considered.filter((k) => !changed.has(k))).size,
    basedOn: tokenOf(at.clock, plan.considered, current),
    applied: at.applied,
    validators: [],
  };
}

/**
 * Multi-key changes computed from the version's state (restores, imports): a dry run shows what
 * would change and the generations it saw; applying recomputes the plan in one transaction, refuses
 * it (409) when any of those generations moved, and commits it as one batch: one audit record per
 * entry, one change notice (one stream event).
 */
export class EntryPlans {
  /** Changes one plan may hold (and keys one request may name): every entry of a full version deleted and as many created. */
  readonly maxChanges: number;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly caps: VersionCaps,
    /** Asks the service's validators about a dry run. */
    private readonly calls: ValidatorCalls,
  ) {
    this.maxChanges = 2 * caps.maxEntries;
  }

  /**
   * What applying would change, the rules its values break, and what the service's validators
   * answer to it (asked once the read is done).
   */
  async preview(caller: Caller, serviceId: string, versionId: string, planner: Planner): Promise<PlanOutcome> {
    const { outcome, changes, versionLabel } = await this.uow.readConsistent(async (stores) => {
      const version = await stores.versions.get(serviceId, versionId);
      if (!version) throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      const planned = await planner(stores, versionId);
      const current = await liveByKey(stores, versionId, planned.considered);
      const plan = settle(planned, current, mayReveal(caller));
      // A dry run refuses what applying it would refuse, so a preview never promises a failing batch.
      requireWithinLimit(plan, this.maxChanges);
      requireValid(plan, current);
      requireMayCheckSecrets(plan, current, mayReveal(caller));
      await requireWithinVersionCaps(stores, this.caps, versionId, sizeChangeOf(plan, current), { dryRun: true });
      const now = this.clock.nowMicros();
      return {
        outcome: describe(plan, current, { clock: (await stores.versions.clock(versionId)) ?? 0, applied: false }),
        changes: plannedChanges(plan, current, { versionId, now, ids: this.ids }),
        versionLabel: version.versionLabel,
      };
    });
    // Values that break their schemas are refused before any validator is asked, as on apply.
    if (outcome.changes.some((c) => c.violations.length > 0)) return outcome;
    const request = { serviceId, versionId, versionLabel, actor: actorOfCaller(caller) };
    return { ...outcome, validators: await validatorAnswers(this.uow.read, this.calls, request, changes) };
  }

  apply(
    caller: Caller,
    target: { serviceId: string; versionId: string },
    planner: Planner,
    options: { basedOn: string | null; action: 'Restored' | 'Imported' | 'Promoted' },
  ): Promise<PlanOutcome> {
    const { serviceId, versionId } = target;
    const expected = options.basedOn === null ? null : parseToken(options.basedOn);
    return this.uow.write(async (ctx) => {
      if (!(await ctx.versions.get(serviceId, versionId))) {
        throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
      }
      // Opening the writer takes the clock first and locks the version: nothing changes between the
      // plan and its writes.
      const writer = await EntryWriter.open(ctx, {
        serviceId,
        versionId,
        actor: actorOfCaller(caller),
        nowMicros: this.clock.nowMicros(),
        ids: this.ids,
        caps: this.caps,
      });
      const planned = await planner(ctx, versionId);
      const current = await liveByKey(ctx, versionId, planned.considered);
      const plan = settle(planned, current, mayReveal(caller));
      if (expected) await requireUnchanged(ctx, versionId, expected, plan.considered, current);
      requireWithinLimit(plan, this.maxChanges);
      // Setting values needs an editor; creating and deleting keys is managing the version (an owner).
      await requireServiceAccess(ctx, caller, serviceId, 'write');
      if (plan.changes.some((c) => c.kind !== 'set')) await requireServiceAccess(ctx, caller, serviceId, 'manage');
      requireValid(plan, current);
      requireMayCheckSecrets(plan, current, mayReveal(caller));
      await write(writer, plan, current, options.action);
      await writer.commit();
      return describe(plan, current, { clock: writer.timestamp, applied: true });
    });
  }
}

/**
 * Applies a plan through the entry writer: its value sets, then its deletions, then its new
 * entries (a key created again after its deletion comes after it), each kind as one batch, so a
 * plan of any size is a few statements.
 */
async function write(
  writer: EntryWriter,
  plan: Plan,
  current: ReadonlyMap<string, EntryRecord>,
  action: 'Restored' | 'Imported' | 'Promoted',
): Promise<void> {
  const sets: Array<{ before: EntryRecord; rawValue: string | null; overrides?: readonly EntryOverride[] }> = [];
  const deletes: EntryRecord[] = [];
  const creates: NewEntry[] = [];
  for (const change of plan.changes) {
    const before = current.get(keyOf(change));
    if (change.kind === 'set' && before) {
      sets.push({ before, rawValue: change.rawValue, ...(change.overrides ? { overrides: change.overrides } : {}) });
    } else if (change.kind === 'delete' && before) deletes.push(before);
    else if (change.kind === 'create') creates.push(change.entry);
    else if (change.kind === 'recreate') {
      if (before) deletes.push(before);
      creates.push(change.entry);
    }
  }
  if (sets.length > 0) await writer.setValues(sets, action);
  if (deletes.length > 0) await writer.delete(deletes, action);
  if (creates.length > 0) await writer.create(creates, action);
}

/**
 * The plan without the value sets that change nothing. A caller who may not reveal secrets keeps a
 * set that involves a secret (the entry is secret, or the value was) whatever its value: "no change"
 * would confirm a guessed value, or tell an old secret value equal to a value now shown, with no
 * audit record. Applying such a set writes the same value again.
 */
function settle(plan: Plan, current: ReadonlyMap<string, EntryRecord>, comparesSecrets: boolean): Plan {
  const changes = plan.changes.filter(
    (change) =>
      change.kind !== 'set' ||
      change.same !== true ||
      (!comparesSecrets && (change.secretValue === true || current.get(change.key)?.isSecret === true)),
  );
  return changes.length === plan.changes.length ? plan : { ...plan, changes };
}

function requireWithinLimit(plan: Plan, max: number): void {
  if (plan.changes.length > max) {
    throw AppError.invalid(`A batch holds at most ${max} changes (this one has ${plan.changes.length}).`);
  }
}

/** What applying the plan does to the version's size, change by change as `write` applies them. */
function sizeChangeOf(plan: Plan, current: ReadonlyMap<string, EntryRecord>): SizeChange {
  return totalChange(
    plan.changes.map((change) => {
      const before = current.get(keyOf(change));
      if (change.kind === 'set') {
        const overrides = change.overrides ?? before?.overrides;
        return before ? sizeChange(before, { ...before, rawValue: change.rawValue, overrides }) : NONE;
      }
      if (change.kind === 'delete') return sizeChange(before, null);
      return sizeChange(before, change.entry);
    }),
  );
}

const NONE: SizeChange = { entries: 0, bytes: 0 };
