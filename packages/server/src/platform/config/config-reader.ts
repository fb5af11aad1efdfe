import { CONFIG_KEYS, type ConfigKeyName, type KeyDefinition, type ValueOf } from './config-keys.js';
import type { ConfigValues } from './config-values.js';

export interface TextOptions {
  /** Secrets are neither trimmed nor echoed in messages. */
  readonly secret?: boolean;
}

/**
 * Typed reads of merged configuration values. Every source delivers text, so each read coerces
 * and checks one key; problems are collected (each naming its canonical key) instead of thrown,
 * so that one start-up failure reports everything that is wrong. On a problem the fallback is
 * returned to let the caller carry on; the result is never used because `issues` is non-empty.
 */
export class ConfigReader {
  readonly issues: string[] = [];

  constructor(private readonly values: ConfigValues) {}

  problem(message: string): void {
    this.issues.push(message);
  }

  /** A key read, checked and defaulted as its entry in CONFIG_KEYS says. */
  read<K extends ConfigKeyName>(key: K): ValueOf<K> {
    const definition: KeyDefinition = CONFIG_KEYS[key];
    const { kind } = definition;
    const options = { secret: definition.secret === true };
    let value: unknown;
    switch (kind.type) {
      case 'integer':
        value = this.integer(key, kind.default, {
          min: kind.min,
          ...(kind.max !== undefined ? { max: kind.max } : {}),
        });
        break;
      case 'positive-number':
        value = this.positiveNumber(key, kind.default);
        break;
      case 'boolean':
        value = this.boolean(key, kind.default);
        break;
      case 'text':
        value = this.text(key, kind.default, options);
        break;
      case 'optional-text':
        value = this.optionalText(key, options);
        break;
      case 'required-text':
        value = this.requiredText(key, definition.provider ?? 'set', options);
        break;
      case 'choice':
        value = this.choice(key, kind.default, kind.values);
        break;
      case 'list':
        value = this.list(key, kind.default);
        break;
    }
    return value as ValueOf<K>;
  }

  /** A non-empty string; unset (or JSON null) gives the default. */
  text(key: string, fallback: string, options: TextOptions = {}): string {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null) return fallback;
    if (raw.trim() === '') {
      this.problem(`${key} must not be empty`);
      return fallback;
    }
    return options.secret === true ? raw : raw.trim();
  }

  /** A string, or null when unset or empty. */
  optionalText(key: string, options: TextOptions = {}): string | null {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null || raw.trim() === '') return null;
    return options.secret === true ? raw : raw.trim();
  }

  /** A non-empty string that the active provider cannot do without. */
  requiredText(key: string, provider: string, options: TextOptions = {}): string {
    const value = this.optionalText(key, options);
    if (value === null) {
      this.problem(`${key} is required when Authentication:Provider is ${provider}`);
      return '';
    }
    return value;
  }

  integer(key: string, fallback: number, range: { readonly min: number; readonly max?: number }): number {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null) return fallback;
    const text = raw.trim();
    const value = /^[+-]?[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    if (Number.isSafeInteger(value) && value >= range.min && value <= max) return value;
    const expected =
      range.max === undefined
        ? range.min === 1
          ? 'a positive integer'
          : `an integer of at least ${range.min}`
        : `an integer between ${range.min} and ${range.max}`;
    this.problem(`${key} must be ${expected} (got ${JSON.stringify(raw)})`);
    return fallback;
  }

  positiveNumber(key: string, fallback: number): number {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null) return fallback;
    const text = raw.trim();
    // Number() alone would accept '', '0x10' and 'Infinity'.
    const value = /^\+?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text) ? Number(text) : Number.NaN;
    if (Number.isFinite(value) && value > 0) return value;
    this.problem(`${key} must be a positive number (got ${JSON.stringify(raw)})`);
    return fallback;
  }

  boolean(key: string, fallback: boolean): boolean {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null) return fallback;
    const text = raw.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
    this.problem(`${key} must be true or false (got ${JSON.stringify(raw)})`);
    return fallback;
  }

  /** One of `allowed`, matched ignoring case, returned in the canonical casing of `allowed`. */
  choice<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.values.get(key)?.value;
    if (raw === undefined || raw === null) return fallback;
    const wanted = raw.trim().toLowerCase();
    const match = allowed.find((option) => option.toLowerCase() === wanted);
    if (match !== undefined) return match;
    this.problem(`${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
    return fallback;
  }

  /**
   * A string array. Sources merge by index (a later `Key:0` replaces element 0 only). A single
   * value at the key itself replaces the whole array: a comma-separated list, empty for no
   * elements (also what an empty JSON array gives), or null to go back to the default.
   * The default is not index-merged with what the sources give: a file listing
   * `["role","roles","groups"]` means exactly those, not the default's fourth element too.
   */
  list(key: string, fallback: readonly string[]): readonly string[] {
    const whole = this.values.get(key);
    let items = this.values.listItems(key);
    if (whole === undefined && items.length === 0) return fallback;
    const byIndex = new Map<number, string | null>();
    if (whole !== undefined) {
      const start = whole.value === null ? fallback : splitList(whole.value);
      start.forEach((value, index) => byIndex.set(index, value));
      items = items.filter((item) => item.entry.rank >= whole.rank);
    }
    for (const item of items) byIndex.set(item.index, item.entry.value);
    const result: string[] = [];
    for (const [index, value] of [...byIndex].sort((a, b) => a[0] - b[0])) {
      const text = value?.trim() ?? '';
      if (text === '') {
        this.problem(`${key}:${index} must not be empty`);
        continue;
      }
      result.push(text);
    }
    return result;
  }
}

function splitList(text: string): string[] {
  return text.trim() === '' ? [] : text.split(',');
}
