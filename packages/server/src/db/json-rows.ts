import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './schema.js';

/** The SQL type of a column read from JSON rows. */
export type JsonColumnType = 'text' | 'integer' | 'bigint';

/**
 * Many rows given to one statement as one JSON parameter, read as a table `v` with typed columns:
 * PostgreSQL's `jsonb_to_recordset`, SQLite's `json_each`. A batch of any size is then one statement
 * binding one value (instead of a statement per row, or per slice under the bound-value limits), and
 * `v.ord` keeps the rows in the order given.
 *
 * Column names come from this code, never from users: they are written into the SQL as they are.
 */
export function jsonRows(
  dialect: Dialect,
  rows: readonly Record<string, unknown>[],
  columns: Readonly<Record<string, JsonColumnType>>,
): RawBuilder<unknown> {
  const json = JSON.stringify(rows);
  const names = Object.keys(columns);
  for (const name of names) if (!/^[a-z_]+$/.test(name)) throw new Error(`jsonRows: column name ${name}`);
  if (dialect === 'postgres') {
    const declared = names.map((name) => `${name} ${columns[name]}`).join(', ');
    return sql`rows from (jsonb_to_recordset(${json}::jsonb) as (${sql.raw(declared)})) with ordinality as v(${sql.raw(names.join(', '))}, ord)`;
  }
  const read = names.map((name) => `json_extract(value, '$.${name}') as ${name}`).join(', ');
  return sql`(select ${sql.raw(read)}, key as ord from json_each(${json})) as v`;
}

/**
 * `INSERT INTO table (columns) SELECT columns FROM <rows> ORDER BY ord`: rows in one statement,
 * auto-numbered columns in the order given.
 */
export async function insertJsonRows(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  rows: readonly Record<string, unknown>[],
  columns: Readonly<Record<string, JsonColumnType>>,
): Promise<void> {
  if (rows.length === 0) return;
  const names = sql.raw(Object.keys(columns).join(', '));
  await sql`insert into ${sql.table(table)} (${names}) select ${names} from ${jsonRows(dialect, rows, columns)} order by ord`.execute(
    db,
  );
}
