import { ConfigError } from './errors.js';
import { schemaProblem } from './internal/protocol.js';

/**
 * A JSON Schema (draft 2020-12) as a plain object: the rules an entry's value must meet. The
 * builders make one from their rules; {@link json} and {@link array} also take one directly.
 * @example
 * ```ts
 * const limits: JsonSchema = { type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, required: ['max'] };
 * ```
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * Rules of a {@link number} setting, sent to the server as its schema (`minimum`, `maximum`,
 * `type: integer`) and checked on every value, wherever it is written.
 * @example
 * ```ts
 * TimeoutSeconds: number({ default: 30, min: 1, max: 300, integer: true })
 * ```
 */
export interface NumberRules {
  /** The smallest value allowed (inclusive). @default undefined */
  readonly min?: number;
  /** The largest value allowed (inclusive). @default undefined */
  readonly max?: number;
  /** Only whole numbers. @default false */
  readonly integer?: boolean;
}

/** The formats a {@link string} setting may require. */
export type StringFormat = 'uri' | 'email' | 'hostname' | 'uuid' | 'date-time';

/**
 * Rules of a {@link string} setting, sent to the server as its schema and checked on every value.
 * `pattern` is a regular expression (ECMAScript syntax, matched anywhere unless anchored), run by
 * a linear-time engine: no backreferences or lookarounds.
 * @example
 * ```ts
 * Endpoint: string({ default: 'https://api.example.com', pattern: '^https://', format: 'uri' })
 * ```
 */
export interface StringRules {
  /** @default undefined */
  readonly minLength?: number;
  /** @default undefined */
  readonly maxLength?: number;
  /** @default undefined */
  readonly pattern?: string;
  /** @default undefined */
  readonly format?: StringFormat;
}

/**
 * Rules of an {@link array} setting, sent to the server as its schema and checked on every value.
 * @example
 * ```ts
 * Hosts: array<string>({ default: ['a.internal'], minItems: 1, maxItems: 5, items: { format: 'hostname' } })
 * ```
 */
export interface ArrayRules {
  /** @default undefined */
  readonly minItems?: number;
  /** @default undefined */
  readonly maxItems?: number;
  /** The JSON Schema every item must meet. @default undefined */
  readonly items?: JsonSchema;
}

/**
 * Rules of a {@link json} setting: its JSON Schema, sent to the server and checked on every value.
 * @example
 * ```ts
 * Limits: json<{ max: number }>({ default: { max: 1 }, schema: { required: ['max'] } })
 * ```
 */
export interface JsonRules {
  /** @default undefined */
  readonly schema?: JsonSchema;
}

/** The schema of the rules given (undefined when none), or INVALID_ARGUMENT naming the builder. */
export function schemaOf(builder: string, members: Record<string, unknown>): JsonSchema | undefined {
  const given = Object.entries(members).filter(([, value]) => value !== undefined);
  if (given.length === 0) return undefined;
  const schema = Object.freeze(Object.fromEntries(given));
  const problem = schemaProblem(schema);
  if (problem !== null)
    throw new ConfigError('INVALID_ARGUMENT', `${builder}(): its rules make a schema that ${problem}`);
  return schema;
}

export const numberSchema = (rules: NumberRules): JsonSchema | undefined =>
  schemaOf('number', {
    type: rules.integer === true ? 'integer' : undefined,
    minimum: rules.min,
    maximum: rules.max,
  });

export const stringSchema = (rules: StringRules): JsonSchema | undefined =>
  schemaOf('string', {
    minLength: rules.minLength,
    maxLength: rules.maxLength,
    pattern: rules.pattern,
    format: rules.format,
  });

export const arraySchema = (rules: ArrayRules): JsonSchema | undefined =>
  schemaOf('array', { minItems: rules.minItems, maxItems: rules.maxItems, items: rules.items });

export function jsonSchema(rules: JsonRules): JsonSchema | undefined {
  if (rules.schema === undefined) return undefined;
  const problem = schemaProblem(rules.schema);
  if (problem !== null) throw new ConfigError('INVALID_ARGUMENT', `json(): its schema ${problem}`);
  return rules.schema;
}
