import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ValueType } from '../gen/konfigo/client/service_pb.js';
import { parseBoolean, parseNumber } from '../values/scalar-values.js';
import { linearTimeRegExp } from './linear-regexp.js';

/**
 * An entry's JSON Schema (draft 2020-12): the rule its typed value must meet, checked by the server on
 * every write, by the console as the user types and by the SDK on what it receives. One Ajv instance
 * and one cache of compiled schemas per process; patterns run on a linear-time engine.
 */

/** A schema is at most this many bytes of JSON. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** At most this many broken rules are reported for one value. */
export const MAX_VIOLATIONS = 100;
/** Compiled schemas kept (the least recently used is dropped beyond). */
const CACHE_SIZE = 2000;

/** One rule a value breaks: where in the value (a JSON Pointer, "" for the whole value), which keyword, why. */
export interface SchemaViolation {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message: string;
}

type AddFormats = (instance: Ajv2020) => unknown;
// ajv-formats is CommonJS with its function as `exports.default`: under NodeNext the import is the
// module object, under a bundler (the console) it may be the function itself.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const ajv = new Ajv2020({
  // Strict about the schema itself (unknown keywords, unknown formats, ignored keywords) so a typo
  // never passes as a rule; not about type annotations, so `{"minimum":1}` needs no `"type"`.
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allErrors: true,
  code: { regExp: linearTimeRegExp },
});
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();

function compile(text: string, schema: object): ValidateFunction {
  const hit = compiled.get(text);
  if (hit) {
    compiled.delete(text);
    compiled.set(text, hit);
    return hit;
  }
  const validate = ajv.compile(schema);
  compiled.set(text, validate);
  if (compiled.size > CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
  return validate;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `$ref`s (and `$dynamicRef`s) of a schema that point outside it. */
function outsideRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) outsideRefs(item, found);
  } else if (isPlainObject(node)) {
    for (const [name, value] of Object.entries(node)) {
      if ((name === '$ref' || name === '$dynamicRef') && (typeof value !== 'string' || !value.startsWith('#'))) {
        found.push(String(value));
      } else if (name === '$id' && typeof value === 'string' && !value.startsWith('#')) {
        // An $id changes what relative references resolve against: the schema would name other documents.
        found.push(`$id ${value}`);
      } else {
        outsideRefs(value, found);
      }
    }
  }
  return found;
}

/** UTF-8 bytes of a text (no TextEncoder: the package's build targets neither the DOM nor Node only). */
function byteLength(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * What is wrong with a schema, or null when it is one: a JSON object that is a valid 2020-12 schema,
 * at most 64 KiB, referring to nothing outside itself, whose patterns the linear-time engine takes.
 */
export function schemaProblem(schema: unknown): string | null {
  if (!isPlainObject(schema)) return 'must be a JSON Schema object (or null for none)';
  const text = JSON.stringify(schema);
  if (byteLength(text) > MAX_SCHEMA_BYTES) return `must be at most ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`;
  const refs = outsideRefs(schema);
  if (refs.length > 0) return `may refer only to itself ("#…"), not to ${refs.slice(0, 3).join(', ')}`;
  try {
    compile(text, schema);
    return null;
  } catch (error) {
    return `is not a valid JSON Schema (draft 2020-12): ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * A raw value as the JSON its schema is checked against: Number a JSON number, Boolean true/false,
 * Array and Json the parsed document, every other type its text. Undefined when the raw value does
 * not fit its type (the type check reports that).
 */
export function typedValue(valueType: number, rawValue: string): unknown {
  switch (valueType) {
    case ValueType.NUMBER:
      return parseNumber(rawValue);
    case ValueType.BOOLEAN:
      return parseBoolean(rawValue);
    case ValueType.ARRAY:
    case ValueType.JSON:
      try {
        return JSON.parse(rawValue) as unknown;
      } catch {
        return undefined;
      }
    default:
      return rawValue;
  }
}

const violationOf = (error: ErrorObject): SchemaViolation => ({
  instancePath: error.instancePath,
  keyword: error.keyword,
  message: error.message ?? `breaks "${error.keyword}"`,
});

/**
 * The rules of `schema` a value breaks (at most 100), none when it meets them. `null` (use the
 * default) meets every schema; so does a value that does not fit its type, which the type check
 * refuses first. The schema must have passed `schemaProblem`.
 */
export function schemaViolations(schema: object | null, valueType: number, rawValue: string | null): SchemaViolation[] {
  if (schema === null || rawValue === null) return [];
  const value = typedValue(valueType, rawValue);
  if (value === undefined) return [];
  const validate = compile(JSON.stringify(schema), schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, MAX_VIOLATIONS).map(violationOf);
}

/** The violations as one line, for messages: `/max must be <= 300; must match pattern "^https://"`. */
export function describeViolations(violations: readonly SchemaViolation[]): string {
  return violations.map((v) => (v.instancePath ? `${v.instancePath} ${v.message}` : v.message)).join('; ');
}
