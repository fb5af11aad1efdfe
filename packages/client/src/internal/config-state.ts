import { ConfigError } from '../errors.js';
import type { ConfigSchema } from '../schema.js';
import { shown } from './codecs.js';
import { buildValues, planSchema, type PlannedSetting, type SchemaPlan } from './schema-plan.js';

/** A key's raw state on the server: a snapshot entry or a change event (`value` null: deleted). */
export interface RemoteEntry {
  readonly key: string;
  readonly value: string | null;
  /** Microseconds since the epoch. */
  readonly timestamp: number;
  /** The server marks the entry secret (`is_secret`): never on disk in plaintext, whatever the schema says. */
  readonly secret?: true;
}

/** One changed key, with typed values. */
export interface ValueChange {
  readonly key: string;
  readonly oldValue: unknown;
  readonly newValue: unknown;
}

/** What applying a snapshot or an event did. */
export interface Applied {
  readonly changes: readonly ValueChange[];
  /** Remote values that did not parse; their keys kept the last good value. */
  readonly problems: readonly ConfigError[];
}

interface Current {
  readonly value: unknown;
  /** The raw text the value was read from (the default's when the server has none). */
  readonly raw: string | null;
}

/**
 * The client's view of one version: the raw entries of the declared keys with their timestamps,
 * the typed values read from them, and the timestamp of the last event seen. Applying the same
 * change twice (a backfill overlapping what a snapshot had) changes nothing.
 */
export class ConfigState {
  readonly plan: SchemaPlan;
  private readonly remote = new Map<string, { value: string | null; timestamp: number; secret: boolean }>();
  private readonly current = new Map<string, Current>();
  private tree: Readonly<Record<string, unknown>>;
  /** The newest timestamp seen (µs); undefined when nothing was seen yet. */
  lastTimestamp: number | undefined;

  constructor(private readonly schema: ConfigSchema) {
    this.plan = planSchema(schema);
    for (const s of this.plan.settings) this.current.set(s.key, { value: s.setting.default, raw: s.defaultRaw });
    this.tree = buildValues(schema, (key) => this.current.get(key)?.value ?? null);
  }

  get values(): Readonly<Record<string, unknown>> {
    return this.tree;
  }

  /** The raw entries of the declared keys and the last timestamp, for the cache file. */
  get entries(): RemoteEntry[] {
    return [...this.remote].map(([key, { value, timestamp, secret }]) => ({
      key,
      value,
      timestamp,
      ...(secret ? { secret: true as const } : {}),
    }));
  }

  /**
   * Replaces the view with a whole snapshot (GetConfig, or the cache file). Declared keys the
   * snapshot lacks read their default; they are returned as `missing`.
   */
  reset(entries: readonly RemoteEntry[], lastTimestamp?: number): Applied & { missing: string[] } {
    this.remote.clear();
    let newest = lastTimestamp;
    for (const e of entries) {
      if (newest === undefined || e.timestamp > newest) newest = e.timestamp;
      if (this.plan.byKey.has(e.key)) this.remote.set(e.key, remoteOf(e));
    }
    this.lastTimestamp = newest;
    const missing = this.plan.settings.filter((s) => !this.remote.has(s.key)).map((s) => s.key);
    return { ...this.refresh(this.plan.settings), missing };
  }

  /** Applies the entries of one SubscriptionEvent, in order. */
  apply(events: readonly RemoteEntry[]): Applied {
    const touched = new Map<string, PlannedSetting>();
    for (const e of events) {
      if (this.lastTimestamp === undefined || e.timestamp > this.lastTimestamp) this.lastTimestamp = e.timestamp;
      const planned = this.plan.byKey.get(e.key);
      const known = this.remote.get(e.key);
      if (!planned || (known && known.timestamp >= e.timestamp)) continue; // not ours, or already applied
      this.remote.set(e.key, remoteOf(e));
      touched.delete(e.key); // keep the order of the last change of each key
      touched.set(e.key, planned);
    }
    return this.refresh([...touched.values()]);
  }

  private refresh(settings: readonly PlannedSetting[]): Applied {
    const changes: ValueChange[] = [];
    const problems: ConfigError[] = [];
    for (const planned of settings) {
      const before = this.current.get(planned.key) as Current;
      const raw = this.remote.get(planned.key)?.value ?? planned.defaultRaw;
      if (raw === before.raw) continue;
      let value: unknown = null;
      if (raw !== null) {
        try {
          value = planned.setting.parse(raw);
        } catch (error) {
          problems.push(invalidValue(planned, raw, before.value, error));
          continue;
        }
      }
      this.current.set(planned.key, { value, raw });
      changes.push({ key: planned.key, oldValue: before.value, newValue: value });
    }
    if (changes.length > 0) {
      const changed = new Set(changes.map((c) => c.key));
      this.tree = buildValues(this.schema, (key) => this.current.get(key)?.value ?? null, this.tree, changed);
    }
    return { changes, problems };
  }
}

const remoteOf = (e: RemoteEntry) => ({ value: e.value, timestamp: e.timestamp, secret: e.secret === true });

function invalidValue(planned: PlannedSetting, raw: string, kept: unknown, error: unknown): ConfigError {
  const reason = error instanceof Error ? error.message : String(error);
  // A secret's values are never in a message (messages reach logs).
  const [value, keeping] = planned.setting.secret ? ['of a secret', 'the last good value'] : [shown(raw), shown(kept)];
  return new ConfigError('INVALID_VALUE', `${planned.key}: the remote value ${value} ${reason}; keeping ${keeping}`, {
    key: planned.key,
    cause: error,
  });
}
