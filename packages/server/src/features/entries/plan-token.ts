import { createHash } from 'node:crypto';
import type { EntryRecord, Stores } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

/**
 * The `basedOn` token of a plan's dry run: the version's clock when the dry run read it and a digest
 * of the generation (or absence) of every key the plan considered. Its size does not grow with the
 * plan, so it fits a query string (imports send it there) for any version within the caps.
 */
export interface PlanToken {
  readonly clock: number;
  readonly digest: string;
}

function digestOf(considered: readonly string[], current: ReadonlyMap<string, EntryRecord>): string {
  const hash = createHash('sha256');
  for (const key of [...new Set(considered)].sort()) {
    hash.update(JSON.stringify([key, current.get(key)?.generation ?? null]));
  }
  return hash.digest('base64url');
}

export function tokenOf(clock: number, considered: readonly string[], current: ReadonlyMap<string, EntryRecord>) {
  return `${clock}.${digestOf(considered, current)}`;
}

export function parseToken(token: string): PlanToken {
  const match = /^(\d{1,16})\.([\w-]{43})$/.exec(token);
  if (!match) throw AppError.invalid('basedOn is not a token from a dry run.', { basedOn: ['is not valid'] });
  return { clock: Number(match[1]), digest: match[2] as string };
}

/**
 * Refuses (409) a plan whose considered keys are not what its dry run saw, naming the keys changed
 * since the dry run's clock (each change of an entry, deletion included, moves its change time).
 */
export async function requireUnchanged(
  stores: Stores,
  versionId: string,
  expected: PlanToken,
  considered: readonly string[],
  current: ReadonlyMap<string, EntryRecord>,
): Promise<void> {
  if (digestOf(considered, current) === expected.digest) return;
  const keys = new Set(considered);
  const moved = [...new Set((await stores.entries.changedSince(versionId, expected.clock)).map((e) => e.key))].filter(
    (key) => keys.has(key),
  );
  throw AppError.conflict(
    moved.length > 0
      ? `Changed since the dry run: ${moved
          .slice(0, 20)
          .map((key) => `${key} (now ${current.has(key) ? `generation ${current.get(key)?.generation}` : 'absent'})`)
          .join('; ')}. Run the dry run again.`
      : 'The plan differs from its dry run (other keys or another file). Run the dry run again.',
  );
}
