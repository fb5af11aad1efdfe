import type { ApiClient } from './test-server.js';
import type { ObservedEvent, ResumingSubscriber } from './resuming-subscriber.js';

/** Microseconds of a REST time (`2026-01-02T03:04:05.123456Z`, microsecond precision). */
export function isoToMicros(iso: string): number {
  const match = /^(.+)\.(\d{3})(\d{3})Z$/.exec(iso);
  if (!match) throw new Error(`not a microsecond ISO time: ${iso}`);
  return Date.parse(`${match[1]}.${match[2]}Z`) * 1000 + Number(match[3]);
}

export interface AuditEntity {
  readonly num: number;
  readonly entityType: string;
  readonly entityId: string;
  readonly action: string;
  readonly changes: { before?: any; after?: any };
}

/** Every audit record of the service's entries, oldest first (the API pages newest first). */
export async function fetchEntryAudit(client: ApiClient, serviceId: string): Promise<AuditEntity[]> {
  const all: AuditEntity[] = [];
  let pageToken: string | null = null;
  for (;;) {
    const res = await client.post('/api/auditlogs/search', {
      serviceId,
      entityType: 'Entry',
      pageSize: 500,
      pageToken,
    });
    if (res.status !== 200) throw new Error(`audit search answered ${res.status}: ${res.text}`);
    all.push(...(res.body.entities as AuditEntity[]));
    if (!res.body.nextPageToken) break;
    pageToken = res.body.nextPageToken as string;
  }
  return all.sort((a, b) => a.num - b.num);
}

export interface RestEntry {
  readonly id: string;
  readonly key: string;
  readonly rawValue: string | null;
  readonly generation: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * One REST write a test client sent, and what came of it: `ok` (2xx, answer recorded), `rejected`
 * (4xx: nothing may have changed) or `unknown` (no answer: the connection died, e.g. the server was
 * killed; it may or may not have committed).
 */
export interface WriteAttempt {
  readonly writer: number;
  readonly op: 'set' | 'create' | 'delete';
  /** set: the batch; create: the new key and value; delete: the entry (its generation as last known). */
  readonly items: ReadonlyArray<{
    readonly id?: string;
    readonly key: string;
    readonly rawValue: string | null;
    readonly generation: number;
  }>;
  /** 0 before the server was killed, 1 after the restart. */
  readonly phase: number;
  outcome: 'ok' | 'rejected' | 'unknown';
  status?: number;
  /** set: the updated entries; create: the created entry. */
  answer?: RestEntry[];
  error?: string;
}

/** One committed change of one entry, from the audit log. */
export interface HistoryRecord {
  /** Position in commit order (audit `num` order; writes to a version are serialized). */
  readonly index: number;
  readonly num: number;
  readonly entryId: string;
  readonly action: 'Created' | 'ValueSet' | 'Deleted';
  readonly key: string;
  /** The entry's generation after the change (a deletion: the last generation + 1). */
  readonly generation: number;
  /** The value after the change; null for a deletion (tests never set null values). */
  readonly value: string | null;
  readonly txn: Txn;
}

/** One committed write (one transaction, one change timestamp). */
export interface Txn {
  readonly records: HistoryRecord[];
  /** The change timestamp, when known: from the REST answer or audit record, or from an event that reported it. */
  ts: number | undefined;
  /** When ts is unknown: lo < ts < hi (the known timestamps of the writes before and after it). */
  lo: number;
  hi: number;
  readonly attempt: WriteAttempt | undefined;
}

type Membership = 'yes' | 'no' | 'maybe';

/**
 * The committed history of one version, rebuilt from its audit log and cross-checked with every
 * REST answer the writers got. Subscribers' events are then matched to it: each event must be the
 * state after one committed change, and which changes a subscriber must have seen follows from the
 * timestamps of its calls.
 */
export class ChangeHistory {
  readonly records: HistoryRecord[] = [];
  readonly txns: Txn[] = [];
  readonly problems: string[] = [];
  /** Checks that could not be decided because a write nobody saw has an unknown timestamp. */
  undetermined = 0;
  private readonly byValue = new Map<string, HistoryRecord>();
  private readonly deletionsByKey = new Map<string, HistoryRecord[]>();
  private readonly matched = new Map<ObservedEvent, HistoryRecord>();

  constructor(audit: readonly AuditEntity[], attempts: readonly WriteAttempt[]) {
    const attemptOfValue = new Map<string, WriteAttempt>();
    for (const a of attempts) {
      if (a.op !== 'delete')
        for (const item of a.items) if (item.rawValue !== null) attemptOfValue.set(item.rawValue, a);
    }
    const deleteAttempts = new Map<string, WriteAttempt[]>();
    for (const a of attempts) {
      if (a.op === 'delete' && a.outcome !== 'rejected')
        deleteAttempts.set(a.items[0]?.id ?? '', [...(deleteAttempts.get(a.items[0]?.id ?? '') ?? []), a]);
    }

    let open: Txn | undefined;
    for (const entity of audit) {
      const { action, changes } = entity;
      if (action !== 'Created' && action !== 'ValueSet' && action !== 'Deleted') {
        this.problems.push(`audit ${entity.num}: unexpected action ${action}`);
        continue;
      }
      const state = action === 'Deleted' ? changes.before : changes.after;
      const generation = action === 'Deleted' ? Number(state.generation) + 1 : Number(state.generation);
      const value: string | null = action === 'Deleted' ? null : state.rawValue;
      const attempt =
        action === 'Deleted'
          ? deleteAttempts.get(entity.entityId)?.[0]
          : value !== null
            ? attemptOfValue.get(value)
            : undefined;
      if (action === 'ValueSet' && (!attempt || attempt.op !== 'set')) {
        this.problems.push(
          `audit ${entity.num}: value ${value} of ${state.key} was committed, but no writer sent it in a set`,
        );
      }
      if (action === 'Created' && (!attempt || attempt.op !== 'create')) {
        this.problems.push(`audit ${entity.num}: ${state.key}=${value} was created, but no writer sent that create`);
      }
      if (attempt?.outcome === 'rejected') {
        this.problems.push(
          `audit ${entity.num}: ${action} of ${state.key} was committed although its request answered ${attempt.status}`,
        );
      }
      // A batch set is one transaction: its records are consecutive and belong to one attempt.
      const sameTxn = action === 'ValueSet' && open !== undefined && open.attempt === attempt && attempt !== undefined;
      let txn: Txn;
      if (sameTxn) txn = open as Txn;
      else {
        txn = { records: [], ts: undefined, lo: 0, hi: Number.MAX_SAFE_INTEGER, attempt };
        if (action === 'Created') txn.ts = isoToMicros(changes.after.createdAt as string);
        else if (action === 'ValueSet' && attempt?.outcome === 'ok')
          txn.ts = isoToMicros(attempt.answer?.[0]?.updatedAt ?? '');
        this.txns.push(txn);
      }
      open = action === 'ValueSet' ? txn : undefined;
      const record: HistoryRecord = {
        index: this.records.length,
        num: entity.num,
        entryId: entity.entityId,
        action,
        key: state.key,
        generation,
        value,
        txn,
      };
      txn.records.push(record);
      this.records.push(record);
      if (value !== null) {
        if (this.byValue.has(value)) this.problems.push(`audit ${entity.num}: value ${value} committed twice`);
        this.byValue.set(value, record);
      } else this.deletionsByKey.set(record.key, [...(this.deletionsByKey.get(record.key) ?? []), record]);
    }
    this.checkAnswers(attempts);
    this.checkEntryLives();
    this.refreshBounds();
  }

  /** Every answered write is in the audit log exactly as answered; unanswered ones are all-or-nothing. */
  private checkAnswers(attempts: readonly WriteAttempt[]): void {
    const txnOf = new Map<WriteAttempt, Txn[]>();
    for (const txn of this.txns) if (txn.attempt) txnOf.set(txn.attempt, [...(txnOf.get(txn.attempt) ?? []), txn]);
    for (const a of attempts) {
      const txns = txnOf.get(a) ?? [];
      const label = `writer ${a.writer} ${a.op} ${a.items.map((i) => `${i.key}=${i.rawValue}`).join(',')}`;
      if (a.op === 'delete') continue; // deletions carry no value to tell attempts apart; checked per entry below
      if (a.outcome === 'rejected') continue; // checked while reading the audit log
      if (txns.length > 1) this.problems.push(`${label}: committed ${txns.length} times`);
      const txn = txns[0];
      if (a.outcome === 'unknown' && !txn) continue; // never committed: fine
      if (!txn) {
        this.problems.push(`${label}: answered ${a.status} but not in the audit log`);
        continue;
      }
      if (txn.records.length !== a.items.length) {
        this.problems.push(`${label}: ${a.items.length} items but ${txn.records.length} audit records`);
      }
      a.items.forEach((item, i) => {
        const record = txn.records[i];
        if (!record) return;
        const expectedGeneration = a.op === 'create' ? this.firstGeneration(record) : item.generation + 1;
        if (
          record.key !== item.key ||
          record.value !== item.rawValue ||
          record.generation !== expectedGeneration ||
          (item.id && record.entryId !== item.id)
        ) {
          this.problems.push(
            `${label}: audit says ${record.key}=${record.value} g${record.generation} (${record.entryId})`,
          );
        }
        const answered = a.answer?.[i];
        if (
          a.outcome === 'ok' &&
          (!answered ||
            answered.id !== record.entryId ||
            answered.generation !== record.generation ||
            answered.rawValue !== record.value)
        ) {
          this.problems.push(`${label}: answer ${JSON.stringify(answered)} differs from the audit record`);
        }
        if (answered && isoToMicros(answered.updatedAt) !== txn.ts) {
          this.problems.push(`${label}: answer timestamps differ within one batch`);
        }
      });
    }
    const okDeletes = attempts.filter((a) => a.op === 'delete' && a.outcome === 'ok');
    for (const a of okDeletes) {
      if (!this.records.some((r) => r.action === 'Deleted' && r.entryId === a.items[0]?.id)) {
        this.problems.push(`writer ${a.writer} deleted ${a.items[0]?.key} (204) but the audit log has no deletion`);
      }
    }
    for (const r of this.records) {
      if (r.action === 'Deleted' && !r.txn.attempt)
        this.problems.push(`audit ${r.num}: ${r.key} deleted without a delete request`);
    }
  }

  /**
   * The generation a key's new entry starts at: 1 for a key never seen, else one above its last
   * record (the deletion, whose generation is the entry's last + 1): generations never go back per key.
   */
  private firstGeneration(created: HistoryRecord): number {
    let last: HistoryRecord | undefined;
    for (const r of this.records) {
      if (r.num >= created.num) break;
      if (r.key === created.key) last = r;
    }
    return last ? last.generation + 1 : 1;
  }

  /**
   * Per entry: generations go up by one and nothing follows its deletion; a key's new entry starts one
   * above the deletion before it; per key: one live entry at a time.
   */
  private checkEntryLives(): void {
    const lastOfEntry = new Map<string, HistoryRecord>();
    const liveOfKey = new Map<string, string>();
    for (const r of this.records) {
      const previous = lastOfEntry.get(r.entryId);
      const expected = previous ? previous.generation + 1 : this.firstGeneration(r);
      if (r.generation !== expected || previous?.action === 'Deleted' || (r.action === 'Created') !== !previous) {
        this.problems.push(
          `audit ${r.num}: ${r.action} ${r.key} generation ${r.generation} after ${previous?.action ?? 'nothing'} ${previous?.generation ?? ''}`,
        );
      }
      lastOfEntry.set(r.entryId, r);
      if (r.action === 'Created') {
        if (liveOfKey.has(r.key))
          this.problems.push(`audit ${r.num}: ${r.key} created while another entry has the key`);
        liveOfKey.set(r.key, r.entryId);
      } else if (r.action === 'Deleted') liveOfKey.delete(r.key);
    }
  }

  /** Known timestamps must increase with commit order; unknown ones lie strictly between their neighbours. */
  private refreshBounds(): void {
    let lo = 0;
    let previous: Txn | undefined;
    for (const txn of this.txns) {
      if (txn.ts === undefined) {
        txn.lo = lo;
        continue;
      }
      if (txn.ts <= lo) {
        this.problems.push(
          `commit order and timestamps disagree: ${describeTxn(txn)} at ${txn.ts} after ${previous ? describeTxn(previous) : ''} at ${lo}`,
        );
      }
      lo = Math.max(lo, txn.ts);
      previous = txn;
    }
    let hi = Number.MAX_SAFE_INTEGER;
    for (let i = this.txns.length - 1; i >= 0; i--) {
      const txn = this.txns[i] as Txn;
      if (txn.ts === undefined) txn.hi = hi;
      else hi = txn.ts;
    }
  }

  /**
   * Ties every event (and GetConfig snapshot entry) the subscribers saw to the committed change it
   * reports. Non-null values are unique in these tests, so a value names its change; a deletion is
   * told apart from another deletion of the same key by its timestamp. An event that reports no
   * committed change, or contradicts its timestamp, is a problem.
   */
  matchAll(subscribers: readonly ResumingSubscriber[], extra: readonly ObservedEvent[] = []): void {
    const events: Array<[string, ObservedEvent]> = [];
    for (const s of subscribers) {
      for (const e of s.initialView) events.push([`${s.name} (snapshot)`, e]);
      for (const e of s.events) events.push([s.name, e]);
    }
    for (const e of extra) events.push(['reference', e]);
    const deferred: Array<[string, ObservedEvent]> = [];
    for (const [who, e] of events) {
      if (e.value === null) {
        const candidates = (this.deletionsByKey.get(e.key) ?? []).filter((r) => r.generation === e.generation);
        if (candidates.length === 1) this.bind(who, e, candidates[0] as HistoryRecord);
        else if (candidates.length === 0)
          this.problems.push(`${who}: deletion of ${e.key} g${e.generation} at ${e.timestamp} was never committed`);
        else deferred.push([who, e]);
        continue;
      }
      const record = this.byValue.get(e.value);
      if (!record) this.problems.push(`${who}: ${e.key}=${e.value} was never committed`);
      else if (record.key !== e.key || record.generation !== e.generation) {
        this.problems.push(
          `${who}: ${e.key}=${e.value} g${e.generation}, but it was committed as ${record.key} g${record.generation}`,
        );
      } else this.bind(who, e, record);
    }
    this.refreshBounds();
    for (const [who, e] of deferred) {
      const candidates = (this.deletionsByKey.get(e.key) ?? []).filter(
        (r) =>
          r.generation === e.generation &&
          (r.txn.ts === undefined ? r.txn.lo < e.timestamp && e.timestamp < r.txn.hi : r.txn.ts === e.timestamp),
      );
      if (candidates.length === 1) this.bind(who, e, candidates[0] as HistoryRecord);
      else
        this.problems.push(
          `${who}: deletion of ${e.key} g${e.generation} at ${e.timestamp} matches ${candidates.length} committed deletions`,
        );
    }
    this.refreshBounds();
  }

  recordOf(e: ObservedEvent): HistoryRecord | undefined {
    return this.matched.get(e);
  }

  private bind(who: string, e: ObservedEvent, record: HistoryRecord): void {
    this.matched.set(e, record);
    if (record.txn.ts === undefined) record.txn.ts = e.timestamp;
    else if (record.txn.ts !== e.timestamp) {
      this.problems.push(
        `${who}: ${e.key}=${e.value} g${e.generation} at ${e.timestamp}, but that change was committed at ${record.txn.ts}`,
      );
    }
  }

  /** Whether a change's timestamp lies in (after, upTo]; 'maybe' for a change nobody saw whose timestamp is unknown. */
  within(record: HistoryRecord, after: number, upTo: number): Membership {
    const { ts, lo, hi } = record.txn;
    if (ts !== undefined) return ts > after && ts <= upTo ? 'yes' : 'no';
    if (lo >= after && hi - 1 <= upTo) return 'yes';
    if (hi - 1 <= after || lo + 1 > upTo) return 'no';
    return 'maybe';
  }

  /**
   * What one subscriber must have seen, call by call. For a call that asked for changes after r and
   * whose first message ends at b and whose last message ends at L:
   * - the first message (the backfill, or the first live batch when there was nothing to catch up)
   *   holds exactly the keys changed in (r, b], each (its last occurrence) in its latest state up
   *   to b: intermediate values may be collapsed, nothing may be missing;
   * - the following messages hold every change committed in (b, L], all entries of each, in commit
   *   order, with nothing collapsed, skipped or repeated: the subscriber was connected all along.
   * Together the calls cover (start, last timestamp] without a gap.
   */
  segmentProblems(subscriber: ResumingSubscriber): string[] {
    const problems: string[] = [];
    subscriber.segments.forEach((segment, s) => {
      const first = segment.messages[0];
      if (!first || first.length === 0) return;
      const where = `${subscriber.name} call ${s}`;
      const r = segment.requestTimestamp;
      const b = Math.max(...first.map((e) => e.timestamp));
      const last = segment.messages.at(-1) as ObservedEvent[];
      const upTo = Math.max(b, ...last.map((e) => e.timestamp));

      const latest = new Map<string, HistoryRecord | 'maybe'>();
      for (const record of this.records) {
        const m = this.within(record, r, b);
        if (m !== 'no') latest.set(record.key, m === 'yes' ? record : 'maybe');
      }
      const reported = new Map(first.map((e) => [e.key, e]));
      for (const [key, record] of latest) {
        if (record === 'maybe') {
          this.undetermined++;
          continue;
        }
        const got = reported.get(key);
        if (!got)
          problems.push(`${where}: catch-up after ${r} up to ${b} lacks ${key} (last change ${describe(record)})`);
        else if (this.recordOf(got) !== record) {
          problems.push(
            `${where}: catch-up reports ${key}=${got.value} g${got.generation}, latest up to ${b} is ${describe(record)}`,
          );
        }
      }
      for (const key of reported.keys()) {
        if (!latest.has(key))
          problems.push(`${where}: catch-up after ${r} reports ${key}, which did not change in (${r}, ${b}]`);
      }

      const live = segment.messages.slice(1).flat();
      const expected: HistoryRecord[] = [];
      for (const record of this.records) {
        const m = this.within(record, b, upTo);
        if (m === 'yes') expected.push(record);
        else if (m === 'maybe') this.undetermined++;
      }
      const length = Math.max(live.length, expected.length);
      for (let i = 0; i < length; i++) {
        const got = live[i];
        const want = expected[i];
        if (got && want && this.recordOf(got) === want) continue;
        problems.push(
          `${where}: live event ${i} of ${live.length} in (${b}, ${upTo}] is ` +
            `${got ? `${got.key}=${got.value} g${got.generation} at ${got.timestamp}` : 'missing'}, expected ${want ? describe(want) : 'nothing'}`,
        );
        break;
      }
    });
    return problems;
  }

  /**
   * Per key, generations only go up, by exactly one in live messages (where nothing is skipped),
   * deletions and keys created again after them included: a key's new entry continues after its
   * deletion. A catch-up may skip generations, never repeat or go back.
   */
  generationProblems(subscriber: ResumingSubscriber): string[] {
    const problems: string[] = [];
    const previous = new Map<string, ObservedEvent>(subscriber.initialView.map((e) => [e.key, e]));
    subscriber.segments.forEach((segment, s) => {
      segment.messages.forEach((message, m) => {
        for (const e of message) {
          const before = previous.get(e.key);
          const where = `${subscriber.name} call ${s} message ${m}: ${e.key} g${e.generation} at ${e.timestamp}`;
          if (m > 0) {
            // A key this subscriber never saw starts where the audit log says its entry started.
            const record = this.recordOf(e);
            const expected = before ? before.generation + 1 : record ? this.firstGeneration(record) : 1;
            if (e.generation !== expected)
              problems.push(
                `${where}, live after ${before ? `g${before.generation}${before.value === null ? ' (deleted)' : ''}` : 'nothing'}, expected g${expected}`,
              );
          } else if (before && e.generation <= before.generation) {
            problems.push(`${where}: generation did not go up from ${before.generation}`);
          }
          previous.set(e.key, e);
        }
      });
    });
    return problems;
  }
}

function describeTxn(txn: Txn): string {
  return txn.records.map(describe).join(' + ');
}

function describe(record: HistoryRecord): string {
  return `${record.action} ${record.key}=${record.value} g${record.generation} (audit ${record.num}${record.txn.ts !== undefined ? `, at ${record.txn.ts}` : ', time unknown'})`;
}
