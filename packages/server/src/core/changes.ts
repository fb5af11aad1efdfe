import type { EntryRecord } from './entries.js';
import {
  resolveEntry,
  type EntryOverride,
  type EntryRollout,
  type ResolvedEntry,
  type TargetedInstance,
} from './targeting.js';

/**
 * The change vocabulary: what a committed write tells the realtime streams, the GetConfig snapshots
 * and every other instance sharing the database.
 */

/** One entry's new state in a change. */
export interface EntryChange {
  readonly key: string;
  /** Null when the entry has no value or was deleted. */
  readonly value: string | null;
  /** The key was deleted (value is then null). */
  readonly deleted: boolean;
  readonly generation: number;
  readonly valueType: number;
  /** Change-clock timestamp in microseconds. */
  readonly timestamp: number;
  /** A secret: only callers allowed to see secrets receive it (the others never learn of it). */
  readonly isSecret?: boolean;
  /** A secret whose stored value cannot be decrypted: nobody receives it. */
  readonly unreadable?: boolean;
  /**
   * The entry's overrides, when it has any: each stream resolves the value its instance gets
   * (core's resolveEntry) and never receives `value` or an override that is not its own.
   */
  readonly overrides?: readonly EntryOverride[];
  /** The new value of a rollout running on the entry, for the instances in it (core's inRollout). */
  readonly rollout?: EntryRollout;
  /**
   * What a rollout's move left as it was (a step, its completion): the entry's generation and
   * rollout just before. An instance that resolves the same generation from it as from the change
   * already has the change, and is sent nothing.
   */
  readonly before?: RolloutBefore;
}

/** The state of an entry before a rollout moved (EntryChange.before). */
export interface RolloutBefore {
  readonly generation: number;
  readonly rollout: EntryRollout | null;
}

/** An entry's current state (tombstones included) as a change event. */
export function entryChangeOf(entry: EntryRecord): EntryChange {
  return {
    key: entry.key,
    value: entry.deleted ? null : entry.rawValue,
    deleted: entry.deleted,
    generation: entry.generation,
    valueType: entry.valueType,
    timestamp: entry.changedAt,
    ...(entry.isSecret ? { isSecret: true } : {}),
    ...(entry.unreadable ? { unreadable: true } : {}),
    ...(entry.overrides.length > 0 && !entry.deleted ? { overrides: entry.overrides } : {}),
    ...(entry.rollout && !entry.deleted ? { rollout: entry.rollout } : {}),
  };
}

/**
 * What a committed change did to a version:
 * - `entries`: entries were created, set, updated or deleted (`entries` holds their new state);
 * - `version-updated`: the version's label or description changed (no entries);
 * - `version-deleted`: the version or its service was deleted; `entries` deletes every live key,
 *   after which its subscribers' streams end.
 */
export type ChangeKind = 'entries' | 'version-updated' | 'version-deleted';

/** A committed change of one version: all entries it touched, in one event. */
export interface ChangeNotice {
  readonly kind: ChangeKind;
  readonly serviceId: string;
  readonly versionId: string;
  /** The version's change-clock value for this change; strictly increasing per version. */
  readonly timestamp: number;
  readonly entries: readonly EntryChange[];
}

export type ChangeListener = (notice: ChangeNotice) => void;

/**
 * How committed changes reach the change hub of every instance.
 * - Embedded database (one instance): published in-process right after the commit.
 * - PostgreSQL (one or many instances): announced with NOTIFY inside the writing transaction and
 *   delivered by every instance's LISTEN connection, in commit order, to its own hub.
 */
export interface ChangeFeed<Tx = unknown> {
  /** Inside the writing transaction (the database's own handle), after its last statement. */
  announce(tx: Tx, notices: readonly ChangeNotice[]): Promise<void>;
  /** After the commit. */
  committed(notices: readonly ChangeNotice[]): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createLocalChangeFeed(hub: { publish(notice: ChangeNotice): void }): ChangeFeed {
  return {
    announce: () => Promise.resolve(),
    committed(notices) {
      for (const notice of notices) hub.publish(notice);
    },
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/** What one instance gets of a changed entry (core's resolveEntry on the change's value, overrides and rollout). */
export function resolveChange(change: EntryChange, instance: TargetedInstance): ResolvedEntry {
  return resolveEntry(
    { rawValue: change.value, generation: change.generation, overrides: change.overrides, rollout: change.rollout },
    instance,
  );
}

/**
 * Whether an instance already has a change: a rollout's move that leaves what it resolves at the
 * same generation (the instances a step does not reach, those that got a completed rollout's value).
 */
export function alreadyHas(change: EntryChange, instance: TargetedInstance): boolean {
  const before = change.before;
  if (!before) return false;
  const was = resolveEntry(
    { rawValue: null, generation: before.generation, overrides: change.overrides, rollout: before.rollout },
    instance,
  );
  return was.generation >= resolveChange(change, instance).generation;
}
