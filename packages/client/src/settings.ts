import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigError } from './errors.js';
import {
  arrayCodec,
  booleanCodec,
  dateTimeCodec,
  enumCodec,
  jsonCodec,
  numberCodec,
  stringCodec,
  timeSpanCodec,
  shown,
  type Codec,
} from './internal/codecs.js';
import { deepFreeze } from './internal/deep-freeze.js';
import { describeViolations, schemaViolations, VALUE_TYPE_CODES } from './internal/protocol.js';
import {
  arraySchema,
  jsonSchema,
  numberSchema,
  stringSchema,
  type ArrayRules,
  type JsonRules,
  type JsonSchema,
  type NumberRules,
  type StringRules,
} from './rules.js';
import type { Setting, ValueTypeName } from './schema.js';

/**
 * Options every builder takes.
 * @example
 * ```ts
 * number({ default: 30, description: 'Seconds before the gateway call is abandoned' });
 * ```
 */
export interface SettingOptions<D> {
  /**
   * The value while the server has none; also sent as the entry's default when the version is
   * registered. Without it the value type includes `null`.
   * @default undefined (the value is `null` until the server has one)
   */
  readonly default?: D;
  /** Shown in the management UI. @default undefined */
  readonly description?: string;
  /**
   * A secret (a password, an API key of a provider): registered as a secret entry, encrypted at rest
   * on the server and sent only to clients whose credentials may read secrets (an API key with the
   * `secrets` scope). Never written to `cacheFile` in plaintext (see `cacheKey`).
   * @default false
   */
  readonly secret?: boolean;
}

type InferOutput<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof props?.validate === 'function';
}

/**
 * `parse` of a codec that also checks the setting's schema: a value that breaks a rule is
 * INVALID_VALUE like one that does not fit the type (the client keeps the last good value).
 */
function checkedParse<T>(codec: Codec<T>, valueType: ValueTypeName, schema: JsonSchema | undefined) {
  if (schema === undefined) return (raw: string) => codec.parse(raw);
  const code = VALUE_TYPE_CODES[valueType];
  return (raw: string): T => {
    const value = codec.parse(raw);
    const broken = schemaViolations(schema, code, raw);
    if (broken.length > 0) {
      throw new ConfigError('INVALID_VALUE', `breaks its rules: ${describeViolations(broken.slice(0, 5))}`);
    }
    return value;
  };
}

function defineSetting<T>(
  builder: string,
  valueType: ValueTypeName,
  codec: Codec<T>,
  options: SettingOptions<unknown> | undefined,
  readDefault: (value: unknown) => T = (value) => codec.parse(codec.format(value as T)),
  enumValues?: readonly string[],
  schema?: JsonSchema,
): Setting<T | null> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new ConfigError('INVALID_ARGUMENT', `${builder}(): options must be an object`);
  }
  const { description, default: given, secret } = options ?? {};
  if (description !== undefined && typeof description !== 'string') {
    throw new ConfigError('INVALID_ARGUMENT', `${builder}(): description must be a string`);
  }
  if (secret !== undefined && typeof secret !== 'boolean') {
    throw new ConfigError('INVALID_ARGUMENT', `${builder}(): secret must be true or false`);
  }
  let defaultValue: T | null = null;
  if (given !== undefined && given !== null) {
    try {
      defaultValue = readDefault(given);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConfigError('INVALID_ARGUMENT', `${builder}(): the default ${shown(given)} ${reason}`, {
        cause: error,
      });
    }
  }
  return Object.freeze({
    kind: 'setting',
    valueType,
    description,
    secret: secret === true,
    enumValues: enumValues && Object.freeze([...enumValues]),
    default: deepFreeze(defaultValue),
    schema,
    parse: checkedParse(codec, valueType, schema),
    format: (value: T) => codec.format(value),
  }) as Setting<T | null>;
}

/**
 * A text setting (value type String). Its {@link StringRules} (`minLength`, `maxLength`, `pattern`,
 * `format`) become the entry's schema: the server refuses a value that breaks them, and a received
 * one that does keeps the last good value and is reported.
 * @example
 * ```ts
 * Provider: string({ default: 'Stripe', description: 'Gateway name' }) // string
 * Region: string() // string | null
 * Endpoint: string({ default: 'https://pay.example.com', pattern: '^https://', format: 'uri' })
 * ```
 */
export function string(options: SettingOptions<string> & StringRules & { readonly default: string }): Setting<string>;
export function string(options?: SettingOptions<string> & StringRules): Setting<string | null>;
export function string(options?: SettingOptions<string> & StringRules): Setting<string | null> {
  return defineSetting('string', 'String', stringCodec, options, undefined, undefined, stringSchema(options ?? {}));
}

/**
 * A boolean setting (value type Boolean). Remote values parse case-insensitively (`True`, `false`).
 * @example
 * ```ts
 * Enabled: boolean({ default: true }) // boolean
 * ```
 */
export function boolean(options: SettingOptions<boolean> & { readonly default: boolean }): Setting<boolean>;
export function boolean(options?: SettingOptions<boolean>): Setting<boolean | null>;
export function boolean(options?: SettingOptions<boolean>): Setting<boolean | null> {
  return defineSetting('boolean', 'Boolean', booleanCodec, options);
}

/**
 * A number setting (value type Number): integers and decimals (`-12`, `3.5`, `1e3`). Its
 * {@link NumberRules} (`min`, `max`, `integer`) become the entry's schema, checked by the server on
 * every write and by the client on every value it receives.
 * @example
 * ```ts
 * TimeoutSeconds: number({ default: 30 }) // number
 * Retries: number({ default: 3, min: 0, max: 10, integer: true })
 * ```
 */
export function number(options: SettingOptions<number> & NumberRules & { readonly default: number }): Setting<number>;
export function number(options?: SettingOptions<number> & NumberRules): Setting<number | null>;
export function number(options?: SettingOptions<number> & NumberRules): Setting<number | null> {
  return defineSetting('number', 'Number', numberCodec, options, undefined, undefined, numberSchema(options ?? {}));
}

/**
 * One of a fixed list of strings (value type Enum, registered with `enum_values` joined by `|`).
 * The value type is the union of the literals.
 * @example
 * ```ts
 * Mode: enumOf(['Live', 'Test'], { default: 'Test' }) // 'Live' | 'Test'
 * ```
 */
export function enumOf<const V extends readonly [string, ...string[]]>(
  values: V,
  options: SettingOptions<V[number]> & { readonly default: V[number] },
): Setting<V[number]>;
export function enumOf<const V extends readonly [string, ...string[]]>(
  values: V,
  options?: SettingOptions<V[number]>,
): Setting<V[number] | null>;
export function enumOf<const V extends readonly [string, ...string[]]>(
  values: V,
  options?: SettingOptions<V[number]>,
): Setting<V[number] | null> {
  const list: readonly unknown[] = Array.isArray(values) ? values : [];
  const bad = list.find((v) => typeof v !== 'string' || v.trim() === '' || /[|,]/.test(v) || v.trim() !== v);
  if (list.length === 0 || bad !== undefined || new Set(list).size !== list.length) {
    throw new ConfigError(
      'INVALID_ARGUMENT',
      'enumOf(): expected a non-empty list of distinct strings without "|", "," or surrounding spaces' +
        (bad === undefined ? '' : ` (got ${JSON.stringify(bad)})`),
    );
  }
  return defineSetting('enumOf', 'Enum', enumCodec(values), options, undefined, values);
}

/**
 * A date and time (value type DateTime); the value is a `Date`. The default may be a `Date` or an
 * ISO 8601 text; remote texts without an offset are read as UTC.
 * @example
 * ```ts
 * StartsAt: dateTime() // Date | null
 * Launch: dateTime({ default: '2026-01-01T00:00:00Z' }) // Date
 * ```
 */
export function dateTime(options: SettingOptions<Date | string> & { readonly default: Date | string }): Setting<Date>;
export function dateTime(options?: SettingOptions<Date | string>): Setting<Date | null>;
export function dateTime(options?: SettingOptions<Date | string>): Setting<Date | null> {
  return defineSetting('dateTime', 'DateTime', dateTimeCodec, options, (value) =>
    typeof value === 'string' ? dateTimeCodec.parse(value) : dateTimeCodec.parse(dateTimeCodec.format(value as Date)),
  );
}

/**
 * A duration (value type TimeSpan, stored as .NET writes it: `[-][d.]HH:mm:ss[.fffffff]`); the
 * value is a number of milliseconds. The default may be that text or milliseconds.
 * @example
 * ```ts
 * Window: timeSpan({ default: '00:05:00' }) // number: 300000
 * ```
 */
export function timeSpan(
  options: SettingOptions<string | number> & { readonly default: string | number },
): Setting<number>;
export function timeSpan(options?: SettingOptions<string | number>): Setting<number | null>;
export function timeSpan(options?: SettingOptions<string | number>): Setting<number | null> {
  return defineSetting('timeSpan', 'TimeSpan', timeSpanCodec, options, (value) =>
    timeSpanCodec.parse(typeof value === 'string' ? value : timeSpanCodec.format(value as number)),
  );
}

/**
 * A JSON array (value type Array). Give the item type as a type argument, or a Standard Schema
 * (zod, valibot, arktype …) for the items: it types them and validates every remote value. Its
 * {@link ArrayRules} (`minItems`, `maxItems`, `items`: a JSON Schema) become the entry's schema,
 * which the server checks too.
 * @example
 * ```ts
 * Retries: array<number>({ default: [1, 2] }) // number[]
 * Hosts: array(z.string().url(), { default: [] }) // string[], each item checked
 * Zones: array<string>({ default: ['eu'], minItems: 1, items: { enum: ['eu', 'us'] } })
 * ```
 */
export function array<S extends StandardSchemaV1>(
  item: S,
  options: SettingOptions<readonly InferOutput<S>[]> & ArrayRules & { readonly default: readonly InferOutput<S>[] },
): Setting<InferOutput<S>[]>;
export function array<S extends StandardSchemaV1>(
  item: S,
  options?: SettingOptions<readonly InferOutput<S>[]> & ArrayRules,
): Setting<InferOutput<S>[] | null>;
export function array<T = unknown>(
  options: SettingOptions<readonly T[]> & ArrayRules & { readonly default: readonly T[] },
): Setting<T[]>;
export function array<T = unknown>(options?: SettingOptions<readonly T[]> & ArrayRules): Setting<T[] | null>;
export function array(
  first?: StandardSchemaV1 | (SettingOptions<readonly unknown[]> & ArrayRules),
  second?: SettingOptions<readonly unknown[]> & ArrayRules,
): Setting<unknown[] | null> {
  const item = isStandardSchema(first) ? first : undefined;
  const options = item ? second : (first as (SettingOptions<unknown[]> & ArrayRules) | undefined);
  return defineSetting('array', 'Array', arrayCodec(item), options, undefined, undefined, arraySchema(options ?? {}));
}

/**
 * A JSON object (value type Json). Give its type as a type argument, or a Standard Schema (zod,
 * valibot, arktype …): it types the value and validates every remote value, so a value that does
 * not fit keeps the last good one and is reported. A JSON Schema in `schema` ({@link JsonRules})
 * becomes the entry's schema: the server refuses every value that breaks it, whoever writes it.
 * @example
 * ```ts
 * Limits: json<{ max: number }>({ default: { max: 1 } })
 * Limits: json(z.object({ max: z.number().int() }), { default: { max: 1 } })
 * Limits: json<{ max: number }>({ default: { max: 1 }, schema: { required: ['max'] } })
 * ```
 */
export function json<S extends StandardSchemaV1>(
  schema: S,
  options: SettingOptions<InferOutput<S>> & JsonRules & { readonly default: InferOutput<S> },
): Setting<InferOutput<S>>;
export function json<S extends StandardSchemaV1>(
  schema: S,
  options?: SettingOptions<InferOutput<S>> & JsonRules,
): Setting<InferOutput<S> | null>;
export function json<T = unknown>(options: SettingOptions<T> & JsonRules & { readonly default: T }): Setting<T>;
export function json<T = unknown>(options?: SettingOptions<T> & JsonRules): Setting<T | null>;
export function json(
  first?: StandardSchemaV1 | (SettingOptions<unknown> & JsonRules),
  second?: SettingOptions<unknown> & JsonRules,
): Setting<unknown> {
  const standard = isStandardSchema(first) ? first : undefined;
  const options = standard ? second : (first as (SettingOptions<unknown> & JsonRules) | undefined);
  return defineSetting('json', 'Json', jsonCodec(standard), options, undefined, undefined, jsonSchema(options ?? {}));
}
