/** Rows one read of a long table brings at most: what a walk over a whole table holds at once. */
export const PAGE_ROWS = 500;

/**
 * Walks rows a page at a time in the order of a unique key: `read(after, limit)` answers at most
 * `limit` rows after the key `after` (from the start when undefined), in key order; each row is
 * handled before the next page is read.
 */
export async function forEachPage<R, K>(
  read: (after: K | undefined, limit: number) => Promise<R[]>,
  keyOf: (row: R) => K,
  handle: (row: R) => Promise<void>,
  limit = PAGE_ROWS,
): Promise<void> {
  let after: K | undefined;
  for (;;) {
    const rows = await read(after, limit);
    for (const row of rows) await handle(row);
    const last = rows.at(-1);
    if (rows.length < limit || last === undefined) return;
    after = keyOf(last);
  }
}
