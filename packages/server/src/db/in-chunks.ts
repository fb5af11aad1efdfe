import { slices } from '../platform/slices.js';

/**
 * Values one statement binds for a list (`IN (…)`, multi-row inserts): far below SQLite's limit of
 * 32,766 variables and PostgreSQL's 65,535 parameters, whatever else the statement binds.
 */
export const MAX_BOUND_VALUES = 1000;

/** Runs a statement per slice of the list, one after another (one connection, one transaction), and joins the rows. */
export async function inChunks<T, R>(
  items: readonly T[],
  run: (slice: T[]) => Promise<readonly R[]>,
  size = MAX_BOUND_VALUES,
): Promise<R[]> {
  const rows: R[] = [];
  for (const slice of slices(items, size)) rows.push(...(await run(slice)));
  return rows;
}
