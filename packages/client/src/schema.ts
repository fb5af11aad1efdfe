import { ConfigError } from './errors.js';
import { shown } from './internal/codecs.js';
import {
  checkKey,
  describeViolations,
  isReservedKeySegment,
  schemaViolations,
  VALUE_TYPE_CODES,
  type AnyValueTypeName,
} from './internal/protocol.js';
import type { JsonSchema } from './rules.js';

/**
 * The value types of the service, one per builder: `'String'`, `'Boolean'`, `'Number'`, `'Enum'`,
 * `'DateTime'`, `'TimeSpan'`, `'Array'` or `'Json'`.
 * @example
 * ```ts
 * number({ default: 30 }).valueType; // 'Number'
 * ```
 */
export type ValueTypeName = Exclude<AnyValueTypeName, 'Unknown'>;

/**
 * One configuration entry, made by a builder such as {@link string} or {@link number}. `T` is the
 * type its value has in `config.values`: it includes `null` when the setting has no default.
 * @example
 * ```ts
 * const timeout: Setting<number> = number({ default: 30 });
 * timeout.parse('45'); // 45
 * timeout.format(45); // '45'
 * ```
 */
export interface Setting<T> {
  readonly kind: 'setting';
  /** The value type it is registered with. */
  readonly valueType: ValueTypeName;
  /** Shown in the management UI. */
  readonly description: string | undefined;
  /** A secret: registered as one, and kept out of the cache file unless `cacheKey` encrypts it. */
  readonly secret: boolean;
  /** The allowed values of an {@link enumOf} setting. */
  readonly enumValues: readonly string[] | undefined;
  /** The value while the server has none (never set, or deleted): the declared default, or null. */
  readonly default: T;
  /**
   * The rules its value must meet, as the JSON Schema sent at registration (made from the builder's
   * rules: `min`, `pattern`, `schema` …); undefined without rules.
   */
  readonly schema: JsonSchema | undefined;
  /**
   * Reads a raw value as the server stores it; throws a {@link ConfigError} (`INVALID_VALUE`) when it
   * does not fit its type or breaks its rules.
   */
  parse(raw: string): Exclude<T, null>;
  /** Writes a value as the server stores it; throws a {@link ConfigError} (`INVALID_ARGUMENT`) when it does not fit. */
  format(value: Exclude<T, null>): string;
}

/**
 * The members of a group: settings and nested groups, by name.
 * @example
 * ```ts
 * const fields = { Provider: string(), Retry: group({ Attempts: number({ default: 3 }) }) } satisfies Fields;
 * ```
 */
export interface Fields {
  readonly [name: string]: Setting<unknown> | Group<Fields>;
}

/**
 * A named set of settings; its name is the first key segment of its settings (see {@link group}).
 * @example
 * ```ts
 * const payments: Group = group({ description: 'Payment gateway' }, { Provider: string() });
 * ```
 */
export interface Group<F extends Fields = Fields> {
  readonly kind: 'group';
  /** Sent as the `groupDescription` of its entries. */
  readonly description: string | undefined;
  readonly fields: F;
}

/**
 * The groups of a configuration, by name: what {@link defineConfig} takes.
 * @example
 * ```ts
 * const groups = { Payments: group({ Provider: string() }) } satisfies Groups;
 * ```
 */
export interface Groups {
  readonly [name: string]: Group<Fields>;
}

/**
 * A whole configuration declared with {@link defineConfig}.
 * @example
 * ```ts
 * function start<S extends ConfigSchema>(schema: S) {
 *   return connect({ url, serviceId, version: '1.0.0', schema });
 * }
 * ```
 */
export interface ConfigSchema<G extends Groups = Groups> {
  readonly kind: 'config';
  readonly groups: G;
}

type ValuesOf<F> = {
  readonly [K in keyof F]: F[K] extends Setting<infer T> ? T : F[K] extends Group<infer G> ? ValuesOf<G> : never;
};

/**
 * The typed values of a schema: `ConfigValues<typeof schema>['Payments']['TimeoutSeconds']` is
 * `number`. This is the type of `config.values`.
 * @example
 * ```ts
 * type Values = ConfigValues<typeof schema>;
 * function timeoutMs(values: Values): number {
 *   return values.Payments.TimeoutSeconds * 1000;
 * }
 * ```
 */
export type ConfigValues<S extends ConfigSchema> = ValuesOf<S['groups']>;

type OverridesOf<F> = {
  readonly [K in keyof F]?: F[K] extends Setting<infer T>
    ? T | null
    : F[K] extends Group<infer G>
      ? OverridesOf<G>
      : never;
};

/**
 * A nested partial of typed values, for {@link staticConfig}: `{ Payments: { TimeoutSeconds: 99 } }`;
 * `null` stands for "no value" (the key reads its default).
 * @example
 * ```ts
 * const overrides: ConfigOverrides<typeof schema> = { Payments: { Mode: 'Live' } };
 * ```
 */
export type ConfigOverrides<S extends ConfigSchema> = OverridesOf<S['groups']>;

type ChangesOf<F, Prefix extends string> = {
  [K in keyof F & string]: F[K] extends Setting<infer T>
    ? { readonly key: `${Prefix}${K}`; readonly oldValue: T; readonly newValue: T }
    : F[K] extends Group<infer G>
      ? ChangesOf<G, `${Prefix}${K}:`>
      : never;
}[keyof F & string];

/**
 * One changed setting, as `subscribe` listeners receive it: a union over every key of the schema,
 * so narrowing on `key` gives the value type (`change.key === 'Payments:Mode'` → `'Live' | 'Test'`).
 * @example
 * ```ts
 * config.subscribe((values, changes: ReadonlyArray<ConfigChange<typeof schema>>) => {
 *   for (const change of changes) if (change.key === 'Payments:Mode') setMode(change.newValue);
 * });
 * ```
 */
export type ConfigChange<S extends ConfigSchema> = ChangesOf<S['groups'], ''>;

/**
 * Every key of a schema (`'Payments:Provider' | 'Payments:TimeoutSeconds' | …`).
 * @example
 * ```ts
 * const watched: Array<ConfigKey<typeof schema>> = ['Payments:Mode'];
 * ```
 */
export type ConfigKey<S extends ConfigSchema> = ConfigChange<S>['key'];

/**
 * Options of {@link group}.
 * @example
 * ```ts
 * group({ description: 'Payment gateway' }, { Provider: string() });
 * ```
 */
export interface GroupOptions {
  /** Sent as the `groupDescription` of the group's entries. @default undefined */
  readonly description?: string;
}

function checkName(name: string, where: string): void {
  if (name.trim() === '' || name.includes(':')) {
    throw new ConfigError(
      'INVALID_ARGUMENT',
      `${where}: the name ${JSON.stringify(name)} must be non-empty without ":"`,
    );
  }
  if (isReservedKeySegment(name)) {
    throw new ConfigError(
      'INVALID_ARGUMENT',
      `${where}: the name ${JSON.stringify(name)} is reserved (__proto__, constructor and prototype are not key segments)`,
    );
  }
}

function isMember(value: unknown): value is Setting<unknown> | Group {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return typeof value === 'object' && value !== null && (kind === 'setting' || kind === 'group');
}

/**
 * A group of settings. Its name (the property it is assigned to) is the first segment of its keys
 * (`Payments:TimeoutSeconds`); groups nest, each adding a segment. It is registered as one class
 * (`groupName` = its key path, `groupDescription` = its description).
 *
 * @example
 * ```ts
 * const schema = defineConfig({
 *   Payments: group({ description: 'Payment gateway' }, {
 *     Provider: string({ default: 'Stripe' }),
 *     Retry: group({ Attempts: number({ default: 3 }) }), // key Payments:Retry:Attempts
 *   }),
 * });
 * ```
 */
export function group<const F extends Fields>(fields: F): Group<F>;
export function group<const F extends Fields>(options: GroupOptions, fields: F): Group<F>;
export function group<const F extends Fields>(first: GroupOptions | F, second?: F): Group<F> {
  const options: GroupOptions = second === undefined ? {} : (first as GroupOptions);
  const fields = (second ?? first) as F;
  if (typeof fields !== 'object' || fields === null) {
    throw new ConfigError('INVALID_ARGUMENT', 'group(): expected an object of settings and groups');
  }
  for (const [name, member] of Object.entries(fields)) {
    checkName(name, 'group()');
    if (!isMember(member)) {
      throw new ConfigError(
        'INVALID_ARGUMENT',
        `group(): ${name} is neither a setting (string(), number(), …) nor a group()`,
      );
    }
  }
  if (options.description !== undefined && typeof options.description !== 'string') {
    throw new ConfigError('INVALID_ARGUMENT', 'group(): description must be a string');
  }
  return Object.freeze({ kind: 'group', description: options.description, fields: Object.freeze({ ...fields }) });
}

/**
 * Every key by the server's key rule, and every default by its setting's rules, so a schema the
 * server would refuse fails where it is written.
 */
function checkKeys(fields: Fields, prefix: string): void {
  for (const [name, member] of Object.entries(fields)) {
    const key = `${prefix}${name}`;
    if (member.kind === 'group') checkKeys(member.fields, `${key}:`);
    else {
      const problem = checkKey(key);
      if (problem !== null) {
        const named = key.length > 60 ? `${key.slice(0, 60)}…` : key;
        throw new ConfigError('INVALID_ARGUMENT', `defineConfig(): the key ${named} ${problem}`);
      }
      checkDefault(key, member);
    }
  }
}

/** A default breaks its own rules: the server would refuse to register it, so it is refused here, by key. */
function checkDefault(key: string, setting: Setting<unknown>): void {
  if (setting.schema === undefined || setting.default === null) return;
  const raw = setting.format(setting.default as never);
  const broken = schemaViolations(setting.schema, VALUE_TYPE_CODES[setting.valueType], raw);
  if (broken.length > 0) {
    const value = setting.secret ? 'of a secret' : shown(setting.default);
    throw new ConfigError(
      'INVALID_ARGUMENT',
      `defineConfig(): the default ${value} of ${key} breaks its rules: ${describeViolations(broken.slice(0, 5))}`,
      { key },
    );
  }
}

/**
 * Declares the configuration of an application: groups of typed settings. Pass the result to
 * {@link connect} (or {@link staticConfig} in tests); every value type is inferred from it.
 *
 * @example
 * ```ts
 * const schema = defineConfig({
 *   Payments: group({ description: 'Payment gateway' }, {
 *     Provider: string({ default: 'Stripe', description: 'Gateway name' }),
 *     TimeoutSeconds: number({ default: 30 }),
 *     Mode: enumOf(['Live', 'Test'], { default: 'Test' }),
 *     StartsAt: dateTime(), // Date | null: no default
 *   }),
 * });
 * type Values = ConfigValues<typeof schema>; // { Payments: { Provider: string; … } }
 * ```
 * @throws ConfigError (`INVALID_ARGUMENT`) when a member is not a group, a name is empty or
 * contains `:`, a key breaks the server's key rule (longer than 512 characters, or with a segment
 * `__proto__`, `constructor` or `prototype`), or a default breaks its setting's rules (the message
 * names the key and the rule).
 */
export function defineConfig<const G extends Groups>(groups: G): ConfigSchema<G> {
  if (typeof groups !== 'object' || groups === null) {
    throw new ConfigError('INVALID_ARGUMENT', 'defineConfig(): expected an object of groups');
  }
  for (const [name, member] of Object.entries(groups)) {
    checkName(name, 'defineConfig()');
    if ((member as { kind?: unknown } | null)?.kind !== 'group') {
      throw new ConfigError(
        'INVALID_ARGUMENT',
        `defineConfig(): ${name} must be a group(): every key is <Group>:<Name>, as in the Konfigo SDKs`,
      );
    }
  }
  checkKeys(groups, '');
  return Object.freeze({ kind: 'config', groups: Object.freeze({ ...groups }) });
}
