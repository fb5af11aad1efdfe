import type { EntryOverride, EntrySchema, NewEntry } from '../../core/index.js';
import type { AuditAction, AuditRecord, Stores, UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { clampPageSize, decodePageToken, encodePageToken } from '../../platform/page-token.js';
import type { Plan, PlannedChange, Planner } from '../entries/index.js';

/** An entry as an audit record shows it (`auditView`): what a restore needs of it. */
interface EntryView {
  readonly key: string;
  readonly name?: string;
  readonly rawValue: string | null;
  readonly valueType?: number;
  readonly enumDefinition?: string | null;
  readonly description?: string | null;
  readonly groupName?: string | null;
  readonly groupDescription?: string | null;
  readonly generation?: number;
  readonly isSecret?: boolean;
  readonly unreadable?: boolean;
  /** Absent in records written before entries had schemas. */
  readonly schema?: EntrySchema | null;
  /** Absent in value-only records (ValueSet) and in records written before overrides. */
  readonly overrides?: ReadonlyArray<EntryOverride & { readonly isSecret?: boolean }>;
}

/** Overrides as a record holds them, without the marks the audit store seals by. */
const overridesIn = (view: EntryView | null): EntryOverride[] | undefined =>
  view?.overrides?.map((o) => ({
    labels: o.labels,
    rawValue: o.rawValue,
    ...(o.unreadable ? { unreadable: o.unreadable } : {}),
  }));

export interface HistoryItem {
  readonly action: AuditAction;
  /** The value after the change; null for a deletion. */
  readonly value: string | null;
  readonly generation: number;
  readonly deleted: boolean;
  readonly timestampMicros: number;
  readonly userId: string | null;
  readonly userName: string | null;
  /** The entry was secret at that change: the value is shown redacted. */
  readonly isSecret: boolean;
  readonly unreadable: boolean;
  /** The overrides after the change; null when the record does not say (a value set keeps them). */
  readonly overrides: readonly EntryOverride[] | null;
}

const viewOf = (value: unknown): EntryView | null =>
  typeof value === 'object' && value !== null && 'key' in value ? (value as EntryView) : null;

/** What one audit record says about the entry after it: present with a value, or deleted. */
function stateAfter(record: AuditRecord): { present: boolean; view: EntryView | null; generation: number } {
  const after = viewOf(record.changes.after);
  const before = viewOf(record.changes.before);
  if (record.action === 'Deleted' || after === null) {
    return { present: false, view: before, generation: (before?.generation ?? 0) + 1 };
  }
  return { present: true, view: after, generation: after.generation ?? 0 };
}

/** The history of entries (from the audit log) and the state of a version at a point in time. */
export class EntryHistory {
  constructor(private readonly uow: UnitOfWork) {}

  /** Every change of one entry, newest first, deleted entries included. */
  async of(
    serviceId: string,
    versionId: string,
    entryId: string,
    page: { pageToken?: string | null; pageSize?: number | null },
  ): Promise<{ items: HistoryItem[]; nextPageToken: string }> {
    const limit = clampPageSize(page.pageSize);
    const beforeNum = decodePageToken(page.pageToken);
    if (!(await this.uow.read.versions.get(serviceId, versionId))) {
      throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    }
    const records = await this.uow.read.audit.ofEntity({ entityId: entryId, beforeNum, limit: limit + 1 });
    const mine = records.filter(
      (r) => r.entityType === 'Entry' && r.versionId === versionId && r.action !== 'Revealed',
    );
    if (mine.length === 0 && beforeNum === null) {
      throw AppError.notFound(`Entry ${entryId} has no history in this version.`);
    }
    const items = mine.slice(0, limit).map((r): HistoryItem => {
      const state = stateAfter(r);
      return {
        action: r.action,
        value: state.present ? (state.view?.rawValue ?? null) : null,
        generation: state.generation,
        deleted: !state.present,
        timestampMicros: r.timestamp,
        userId: r.userId,
        userName: r.userName,
        isSecret: state.view?.isSecret === true,
        unreadable: state.view?.unreadable === true,
        overrides: state.present ? (overridesIn(state.view) ?? null) : [],
      };
    });
    const last = mine[limit - 1];
    return { items, nextPageToken: mine.length > limit && last ? encodePageToken(last.num) : '' };
  }
}

/**
 * A restore to a point in time as a plan: each key in scope gets the value it had then; a key that
 * did not exist then is deleted, one deleted since is created again (with its metadata of then), and
 * one whose value type changed since is created again with the type of then. A value equal to the
 * entry's is planned as a set marked `same`, which the entry plans drop unless a secret is involved
 * and the caller may not compare secrets.
 */
export function restorePlanner(atMicros: number, keys: readonly string[] | null): Planner {
  return async (stores: Stores, versionId: string): Promise<Plan> => {
    const records = await stores.audit.entryRecordsUntil({ versionId, untilMicros: atMicros, keys });
    const then = new Map<
      string,
      { present: boolean; rawValue: string | null; secret: boolean; meta: EntryView | null; overrides: EntryOverride[] }
    >();
    for (const record of records) {
      const key = record.entryKey;
      if (!key || record.action === 'Revealed') continue;
      const previous = then.get(key);
      const state = stateAfter(record);
      // A value-only record (ValueSet) keeps the metadata of the last full view.
      const full =
        state.view && state.view.valueType !== undefined
          ? state.view
          : previous?.meta && state.view?.isSecret
            ? { ...previous.meta, isSecret: true }
            : (previous?.meta ?? null);
      // Whether the value was secret is the record's own (the entry writer marks every value written
      // while secret, and turning an entry secret marks its earlier ones), not the entry's today.
      then.set(key, {
        present: state.present,
        rawValue: state.view?.rawValue ?? null,
        secret: state.view?.isSecret === true,
        meta: full,
        // A value set's record keeps the overrides of the one before; records before overrides had none.
        overrides: overridesIn(state.view) ?? (state.view?.valueType === undefined ? (previous?.overrides ?? []) : []),
      });
    }
    const liveNow = (await stores.entries.listLive(versionId)).filter((e) => keys === null || keys.includes(e.key));
    const now = new Map(liveNow.map((e) => [e.key, e]));
    const considered = [...new Set([...(keys ?? []), ...then.keys(), ...now.keys()])];
    const changes: PlannedChange[] = [];
    for (const key of considered.sort()) {
      const past = then.get(key);
      const current = now.get(key);
      if (!past?.present) {
        if (current) changes.push({ kind: 'delete', key });
        continue;
      }
      const entry = newEntryOf(key, past.rawValue, past.meta, past.secret, past.overrides);
      if (!entry) continue;
      if (!current) changes.push({ kind: 'create', entry });
      else if (current.valueType !== entry.valueType) changes.push({ kind: 'recreate', entry });
      else {
        const newOverrides = JSON.stringify(current.overrides) !== JSON.stringify(past.overrides);
        changes.push({
          kind: 'set',
          key,
          rawValue: past.rawValue,
          same: current.rawValue === past.rawValue && !newOverrides,
          ...(past.secret ? { secretValue: true } : {}),
          ...(newOverrides ? { overrides: past.overrides } : {}),
        });
      }
    }
    return { changes, considered };
  };
}

/** The entry a restore creates again (with its schema of then): secret when it was, or when the value it gets was. */
function newEntryOf(
  key: string,
  rawValue: string | null,
  meta: EntryView | null,
  secret: boolean,
  overrides: readonly EntryOverride[],
): NewEntry | null {
  if (!meta || meta.valueType === undefined) return null;
  return {
    key,
    name: meta.name ?? key,
    rawValue,
    valueType: meta.valueType,
    enumDefinition: meta.enumDefinition ?? null,
    description: meta.description ?? null,
    groupName: meta.groupName ?? null,
    groupDescription: meta.groupDescription ?? null,
    isSecret: meta.isSecret === true || secret,
    schema: meta.schema ?? null,
    overrides,
  };
}
