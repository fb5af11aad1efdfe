import type { EntryRecord } from './entries.js';
import type { Stores } from './stores.js';
import { AppError } from '../platform/errors.js';
import { schemaBytes } from './entry-schemas.js';

/** What one version may hold: Versions:MaxEntries live entries, Versions:MaxBytes UTF-8 bytes of their texts. */
export interface VersionCaps {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** How a change alters a version's size; negative when it shrinks it. */
export interface SizeChange {
  readonly entries: number;
  readonly bytes: number;
}

/** The texts of an entry that count toward its version's size. */
export type EntryTexts = Pick<
  EntryRecord,
  'key' | 'rawValue' | 'name' | 'description' | 'groupName' | 'groupDescription' | 'enumDefinition' | 'schema'
> & { readonly overrides?: EntryRecord['overrides'] };

const utf8 = (text: string | null): number => (text === null ? 0 : Buffer.byteLength(text, 'utf8'));

/**
 * The UTF-8 bytes an entry adds to its version: key, value, name, description, group name, group
 * description, allowed values, schema and overrides (what the entry list and exports carry;
 * GetConfig carries the first two). The migration that introduced the counters sums the same columns (schemas came
 * later, null on every row until then).
 */
export function entryTextBytes(entry: EntryTexts): number {
  return (
    utf8(entry.key) +
    utf8(entry.rawValue) +
    utf8(entry.name) +
    utf8(entry.description) +
    utf8(entry.groupName) +
    utf8(entry.groupDescription) +
    utf8(entry.enumDefinition) +
    schemaBytes(entry.schema) +
    (entry.overrides && entry.overrides.length > 0 ? utf8(JSON.stringify(entry.overrides)) : 0)
  );
}

/** The size change of one entry going from `before` to `after` (absent: not there, or deleted). */
export function sizeChange(before: EntryTexts | null | undefined, after: EntryTexts | null | undefined): SizeChange {
  return {
    entries: (after ? 1 : 0) - (before ? 1 : 0),
    bytes: (after ? entryTextBytes(after) : 0) - (before ? entryTextBytes(before) : 0),
  };
}

export function totalChange(changes: Iterable<SizeChange>): SizeChange {
  let entries = 0;
  let bytes = 0;
  for (const change of changes) {
    entries += change.entries;
    bytes += change.bytes;
  }
  return { entries, bytes };
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The one check of a version's caps, inside the transaction of the change it measures: adds the change
 * to the version's size counters and refuses it (so the transaction stores nothing) when a measure
 * that grows would pass its cap. A measure that does not grow is never refused, so deleting and
 * shrinking stay possible in versions over a cap (made before the cap, or before it was lowered).
 * With `dryRun` it only checks, for the dry runs of plans.
 */
export async function requireWithinVersionCaps(
  stores: Stores,
  caps: VersionCaps,
  versionId: string,
  change: SizeChange,
  options: { dryRun?: boolean } = {},
): Promise<void> {
  if (change.entries === 0 && change.bytes === 0) return;
  const size = options.dryRun
    ? await stores.versions
        .size(versionId)
        .then((now) => now && { ...now, entries: now.entries + change.entries, bytes: now.bytes + change.bytes })
    : await stores.versions.resize(versionId, change);
  if (!size) throw AppError.notFound(`Version ${versionId} was not found.`);
  if (change.entries > 0 && size.entries > caps.maxEntries) {
    throw new AppError(
      'VERSION_FULL',
      `Version ${size.versionLabel} would hold ${count(size.entries)} entries; the limit is ${count(caps.maxEntries)} (Versions:MaxEntries).`,
    );
  }
  // The byte size is not told: it counts secrets' values, so it would tell their lengths (and a dry
  // run's answer whether a guess has the right length).
  if (change.bytes > 0 && size.bytes > caps.maxBytes) {
    throw new AppError(
      'VERSION_FULL',
      `Version ${size.versionLabel} would grow past its limit of ${count(caps.maxBytes)} bytes (Versions:MaxBytes).`,
    );
  }
}
