import type { NewestChanges } from './audience.js';
import type { EntryOverride, EntryRollout } from './targeting.js';

/** An entry's JSON Schema (draft 2020-12): the rules its typed value must meet (core's entry-schemas.ts). */
export type EntrySchema = Readonly<Record<string, unknown>>;

export interface EntryRecord {
  readonly id: string;
  readonly versionId: string;
  readonly key: string;
  readonly name: string;
  readonly rawValue: string | null;
  readonly valueType: number;
  readonly enumDefinition: string | null;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
  readonly generation: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Change-clock timestamp (µs) of the last change, deletion included. */
  readonly changedAt: number;
  readonly deleted: boolean;
  /** Its value is secret: sealed at rest, redacted in answers, served only to callers allowed to see it. */
  readonly isSecret: boolean;
  /** A secret whose stored value cannot be decrypted (altered, or its master key is gone): read as null. */
  readonly unreadable?: boolean;
  /** The rules its value must meet; null for none. */
  readonly schema: EntrySchema | null;
  /** Values for instances by label (core's targeting.ts), first match wins; empty for none. */
  readonly overrides: readonly EntryOverride[];
  /** The rollout running on it (docs/rollouts.md), with its new value; null or absent for none. */
  readonly rollout?: EntryRollout | null;
}

/** A new entry as its creator describes it (REST, a plan, a registration). */
export interface NewEntry {
  readonly key: string;
  readonly name: string;
  readonly rawValue: string | null;
  readonly valueType: number;
  readonly enumDefinition: string | null;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
  readonly isSecret: boolean;
  readonly schema: EntrySchema | null;
  /** Its overrides (an import's); none when absent. */
  readonly overrides?: readonly EntryOverride[];
}

export type EntryMetadata = Pick<
  EntryRecord,
  'name' | 'description' | 'groupName' | 'groupDescription' | 'enumDefinition' | 'rawValue' | 'isSecret' | 'schema'
>;

export interface EntryStore {
  /** Live (not deleted) entries of a version, ordered by key. */
  listLive(versionId: string): Promise<EntryRecord[]>;
  getLive(versionId: string, id: string): Promise<EntryRecord | undefined>;
  getManyLive(versionId: string, ids: readonly string[]): Promise<EntryRecord[]>;
  /** The row holding a key, live or tombstone. */
  findByKey(versionId: string, key: string): Promise<EntryRecord | undefined>;
  /** The rows holding any of the keys, live or tombstone. */
  findByKeys(versionId: string, keys: readonly string[]): Promise<EntryRecord[]>;
  insert(entry: EntryRecord): Promise<void>;
  /** Inserts several entries with one statement, whatever their number. */
  insertMany(entries: readonly EntryRecord[]): Promise<void>;
  /** Removes rows for good (tombstones replaced by re-created keys). */
  purge(...ids: string[]): Promise<void>;
  /** New values of several entries in one statement; secret values (`isSecret`) are sealed by the store. */
  setValues(
    changes: readonly {
      id: string;
      rawValue: string | null;
      /** The entry's overrides after the change (written again with the value). */
      overrides: readonly EntryOverride[];
      /** The rollout on it after the change (a rollout ending clears it); null for none. */
      rollout: EntryRollout | null;
      isSecret: boolean;
      generation: number;
      changedAt: number;
      /** The stored value stays as it is (`rawValue` is not written): a secret that cannot be decrypted is never replaced by nothing. */
      keepValue?: boolean;
    }[],
  ): Promise<void>;
  /** New metadata; `overrides` are written again with it (sealed when the entry is, or turns, secret). */
  setMetadata(
    id: string,
    change: EntryMetadata & { overrides: readonly EntryOverride[]; generation: number; changedAt: number },
  ): Promise<void>;
  /** New overrides of an entry; a secret's values are sealed by the store. */
  setOverrides(
    id: string,
    change: { overrides: readonly EntryOverride[]; isSecret: boolean; generation: number; changedAt: number },
  ): Promise<void>;
  /**
   * Moves the rollouts of entries (docs/rollouts.md): their slot and change time, never their
   * generation or value; a secret's new value is sealed by the store.
   */
  setRollouts(
    changes: readonly { id: string; rollout: EntryRollout | null; isSecret: boolean; changedAt: number }[],
  ): Promise<void>;
  /** Turns entries into tombstones (value null, deleted, generation and change time advanced) in one statement. */
  markDeleted(changes: readonly { id: string; generation: number; changedAt: number }[]): Promise<void>;
  /** Every entry of the version changed after the timestamp, tombstones included, in change order. */
  changedSince(versionId: string, afterMicros: number): Promise<EntryRecord[]>;
  /**
   * Timestamps of the version's newest entry change, deletions included (0 when none), for each
   * audience: `secrets` every entry, `public` the entries that are not secret (a change that made an
   * entry secret reaches no public stream). The version's clock can be later (a version update ticks it).
   */
  newestChanges(versionId: string): Promise<NewestChanges>;
}
