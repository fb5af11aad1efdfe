import { AppError, type Violation } from '../platform/errors.js';
import { describeViolations, MAX_VIOLATIONS, schemaProblem, schemaViolations } from '../protocol.js';
import type { EntrySchema } from './entries.js';

/**
 * An entry's schema (a JSON Schema, draft 2020-12) and the values it refuses. The rules themselves
 * are the protocol package's (`schemaProblem`, `schemaViolations`): the server, the SDK, the CLI and
 * the console check with the same code.
 */

/**
 * A schema as sent (REST, a file, a registration): null for none, or a valid schema. Anything else
 * answers 400 with `errors[field]`, naming the key when there is one.
 */
export function requireSchema(schema: unknown, where: { key?: string; field?: string } = {}): EntrySchema | null {
  if (schema === null || schema === undefined) return null;
  const problem = schemaProblem(schema);
  if (problem === null) return schema as EntrySchema;
  const field = where.field ?? 'schema';
  const subject = where.key === undefined ? 'The schema' : `The schema of ${where.key}`;
  throw AppError.invalid(`${subject} ${problem}.`, { [field]: [problem] });
}

/** What a violation says of the entry it is about. */
export interface CheckedEntry {
  readonly key: string;
  /** Null for an entry the write creates (it has no id yet to anyone outside the write). */
  readonly id: string | null;
  readonly valueType: number;
  readonly schema: EntrySchema | null;
  /** A secret's violations never echo the value (see `maskedPath`). */
  readonly isSecret: boolean;
}

/**
 * The rules of its entry's schema a value breaks (none without a schema, for null, or for a value
 * that does not fit its type, which the type check refuses first).
 */
export function violationsOf(entry: CheckedEntry, rawValue: string | null): Violation[] {
  if (entry.schema === null || rawValue === null) return [];
  return schemaViolations(entry.schema, entry.valueType, rawValue).map((v) => ({
    key: entry.key,
    entryId: entry.id,
    instancePath: entry.isSecret ? maskedPath(v.instancePath, entry.schema as EntrySchema) : v.instancePath,
    keyword: v.keyword,
    message: v.message,
  }));
}

/**
 * A JSON Pointer into a secret's value, with every segment that could be part of the value hidden
 * (`*`): kept are array indexes and names the schema itself spells (`properties`, `required` …),
 * which anyone reading the entry sees anyway. Ajv's messages name only the schema's own words.
 */
function maskedPath(path: string, schema: EntrySchema): string {
  if (path === '') return path;
  const text = JSON.stringify(schema);
  return path
    .split('/')
    .map((segment, i) => {
      if (i === 0 || /^\d+$/.test(segment)) return segment;
      const name = segment.replaceAll('~1', '/').replaceAll('~0', '~');
      return text.includes(JSON.stringify(name)) ? segment : '*';
    })
    .join('/');
}

/** The refusal of a write whose values break their rules: 400 with every violation (at most 100). */
export function valuesRefused(violations: readonly Violation[]): AppError {
  const kept = violations.slice(0, MAX_VIOLATIONS);
  const byKey = new Map<string, Violation[]>();
  for (const v of kept) {
    const key = v.key ?? '';
    byKey.set(key, [...(byKey.get(key) ?? []), v]);
  }
  const named = [...byKey]
    .slice(0, 5)
    .map(([key, list]) => `${key ? `${key}: ` : ''}${describeViolations(list)}`)
    .join('; ');
  const more = byKey.size > 5 ? ` (and ${byKey.size - 5} more keys)` : '';
  return new AppError('INVALID_ARGUMENT', `Some values break their rules: ${named}${more}.`, undefined, {
    metadata: { violations: kept },
  });
}

/** The UTF-8 bytes of a schema as stored (JSON), counted toward its version's size. */
export function schemaBytes(schema: EntrySchema | null): number {
  return schema === null ? 0 : Buffer.byteLength(JSON.stringify(schema), 'utf8');
}
