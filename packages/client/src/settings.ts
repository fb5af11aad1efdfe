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

function defineSetting<T>(
  builder: string,
  valueType: ValueTypeName,
  codec: Codec<T>,
  options: SettingOptions<unknown> | undefined,
  readDefault: (value: unknown) => T = (value) => codec.parse(codec.format(value as T)),
  enumValues?: readonly string[],
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
    parse: (raw: string) => codec.parse(raw),
    format: (value: T) => codec.format(value),
  }) as Setting<T | null>;
}

/**
 * A text setting (value type String).
 * @example
 * ```ts
 * Provider: string({ default: 'Stripe', description: 'Gateway name' }) // string
 * Region: string() // string | null
 * ```
 */
export function string(options: SettingOptions<string> & { readonly default: string }): Setting<string>;
export function string(options?: SettingOptions<string>): Setting<string | null>;
export function string(options?: SettingOptions<string>): Setting<string | null> {
  return defineSetting('string', 'String', stringCodec, options);
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
 * A number setting (value type Number): integers and decimals (`-12`, `3.5`, `1e3`).
 * @example
 * ```ts
 * TimeoutSeconds: number({ default: 30 }) // number
 * ```
 */
export function number(options: SettingOptions<number> & { readonly default: number }): Setting<number>;
export function number(options?: SettingOptions<number>): Setting<number | null>;
export function number(options?: SettingOptions<number>): Setting<number | null> {
  return defineSetting('number', 'Number', numberCodec, options);
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
 * (zod, valibot, arktype …) for the items: it types them and validates every remote value.
 * @example
 * ```ts
 * Retries: array<number>({ default: [1, 2] }) // number[]
 * Hosts: array(z.string().url(), { default: [] }) // string[], each item checked
 * ```
 */
export function array<S extends StandardSchemaV1>(
  item: S,
  options: SettingOptions<readonly InferOutput<S>[]> & { readonly default: readonly InferOutput<S>[] },
): Setting<InferOutput<S>[]>;
export function array<S extends StandardSchemaV1>(
  item: S,
  options?: SettingOptions<readonly InferOutput<S>[]>,
): Setting<InferOutput<S>[] | null>;
export function array<T = unknown>(
  options: SettingOptions<readonly T[]> & { readonly default: readonly T[] },
): Setting<T[]>;
export function array<T = unknown>(options?: SettingOptions<readonly T[]>): Setting<T[] | null>;
export function array(
  first?: StandardSchemaV1 | SettingOptions<readonly unknown[]>,
  second?: SettingOptions<readonly unknown[]>,
): Setting<unknown[] | null> {
  const item = isStandardSchema(first) ? first : undefined;
  return defineSetting('array', 'Array', arrayCodec(item), item ? second : (first as SettingOptions<unknown[]>));
}

/**
 * A JSON object (value type Json). Give its type as a type argument, or a Standard Schema (zod,
 * valibot, arktype …): it types the value and validates every remote value, so a value that does
 * not fit keeps the last good one and is reported.
 * @example
 * ```ts
 * Limits: json<{ max: number }>({ default: { max: 1 } })
 * Limits: json(z.object({ max: z.number().int() }), { default: { max: 1 } })
 * ```
 */
export function json<S extends StandardSchemaV1>(
  schema: S,
  options: SettingOptions<InferOutput<S>> & { readonly default: InferOutput<S> },
): Setting<InferOutput<S>>;
export function json<S extends StandardSchemaV1>(
  schema: S,
  options?: SettingOptions<InferOutput<S>>,
): Setting<InferOutput<S> | null>;
export function json<T = unknown>(options: SettingOptions<T> & { readonly default: T }): Setting<T>;
export function json<T = unknown>(options?: SettingOptions<T>): Setting<T | null>;
export function json(
  first?: StandardSchemaV1 | SettingOptions<unknown>,
  second?: SettingOptions<unknown>,
): Setting<unknown> {
  const schema = isStandardSchema(first) ? first : undefined;
  return defineSetting('json', 'Json', jsonCodec(schema), schema ? second : (first as SettingOptions<unknown>));
}
