import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigError } from '../errors.js';
import { deepFreeze } from './deep-freeze.js';
import {
  exceedsLength,
  formatDateTime,
  formatNumber,
  formatTimeSpan,
  isJsonObject,
  MAX_RAW_VALUE_LENGTH,
  parseBoolean,
  parseDateTime,
  parseNumber,
  parseTimeSpan,
} from './protocol.js';

/**
 * How one value type is read from and written to the raw text the server stores, by the rules the
 * server checks (the protocol package's): a text `parse` accepts is one the server stores, and every
 * text `format` writes is one the server accepts. `parse` throws
 * INVALID_VALUE (a remote value that does not fit), `format` INVALID_ARGUMENT (a value from code);
 * their messages name no subject ("is not a decimal number"): the caller puts the key or builder
 * in front. Parsed values are deeply frozen.
 */
export interface Codec<T> {
  parse(raw: string): T;
  format(value: T): string;
}

const SHOWN_CHARS = 80;

/** A value as shown in messages: texts quoted, everything as JSON, long ones cut. */
export function shown(value: unknown): string {
  const cut = (text: string): string => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text);
  if (typeof value === 'string') return JSON.stringify(cut(value));
  if (typeof value !== 'object' || value === null) return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  try {
    return cut(JSON.stringify(value));
  } catch {
    return cut(String(value));
  }
}

const invalid = (message: string, cause?: unknown): ConfigError => new ConfigError('INVALID_VALUE', message, { cause });
const badArgument = (message: string): ConfigError => new ConfigError('INVALID_ARGUMENT', message);

const TOO_LONG = `is longer than ${MAX_RAW_VALUE_LENGTH} characters, the most the server stores`;

/** A raw text within the server's limit (texts longer than it are never stored, nor read back). */
function withinLimit(raw: string, fail: (message: string) => ConfigError): string {
  if (exceedsLength(raw, MAX_RAW_VALUE_LENGTH)) throw fail(TOO_LONG);
  return raw;
}

export const stringCodec: Codec<string> = {
  parse: (raw) => withinLimit(raw, invalid),
  format(value) {
    if (typeof value !== 'string') throw badArgument('is not a string');
    return withinLimit(value, badArgument);
  },
};

export const booleanCodec: Codec<boolean> = {
  parse(raw) {
    const value = parseBoolean(raw);
    if (value === undefined) throw invalid('is not true or false');
    return value;
  },
  format(value) {
    if (typeof value !== 'boolean') throw badArgument('is not a boolean');
    return String(value);
  },
};

export const numberCodec: Codec<number> = {
  parse(raw) {
    const value = parseNumber(raw);
    if (value === undefined) throw invalid('is not a decimal number');
    return value;
  },
  format(value) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw badArgument('is not a finite number');
    return formatNumber(value);
  },
};

export function enumCodec<V extends string>(values: readonly V[]): Codec<V> {
  const allowed = new Set<string>(values);
  const list = values.join(', ');
  return {
    parse(raw) {
      if (!allowed.has(raw)) throw invalid(`is not one of ${list}`);
      return raw as V;
    },
    format(value) {
      if (!allowed.has(value)) throw badArgument(`is not one of ${list}`);
      return value;
    },
  };
}

export const dateTimeCodec: Codec<Date> = {
  parse(raw) {
    const date = parseDateTime(raw);
    if (!date) throw invalid('is not an ISO 8601 date and time');
    return Object.freeze(date);
  },
  format(value) {
    if (!(value instanceof Date)) throw badArgument('is not a valid Date');
    return rangeChecked(() => formatDateTime(value));
  },
};

/** A format of the shared rules; their RangeError (a value beyond what the type holds) as INVALID_ARGUMENT. */
function rangeChecked(format: () => string): string {
  try {
    return format();
  } catch (error) {
    if (error instanceof RangeError) throw badArgument(error.message);
    throw error;
  }
}

export const timeSpanCodec: Codec<number> = {
  parse(raw) {
    const ms = parseTimeSpan(raw);
    if (ms === undefined)
      throw invalid('is not a time span [-][d.]HH:mm:ss[.fffffff] within ±10675199.02:48:05.4775807');
    return ms;
  },
  format(value) {
    if (typeof value !== 'number') throw badArgument('is not a number of milliseconds');
    return rangeChecked(() => formatTimeSpan(value));
  },
};

/** Runs a Standard Schema synchronously; INVALID_VALUE with the issues when it fails. */
export function validateWith<S extends StandardSchemaV1>(schema: S, value: unknown): StandardSchemaV1.InferOutput<S> {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => undefined); // not awaited: keep its failure from becoming an unhandled rejection
    throw badArgument(
      'cannot be checked: its Standard Schema validates asynchronously, and only synchronous schemas are supported',
    );
  }
  if (result.issues) {
    const issues = result.issues.map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw invalid(`fails its schema (${issues.join('; ')})`, result.issues);
  }
  return result.value;
}

function parseJson(raw: string, what: string): unknown {
  withinLimit(raw, invalid);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw invalid(`is not ${what}`, error);
  }
}

function stringifyJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw badArgument(`cannot be written as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw badArgument(`is not ${what}`);
  return withinLimit(text, badArgument);
}

/** JSON arrays; with an item schema, every item is validated (and may be transformed) by it. */
export function arrayCodec<T>(item: StandardSchemaV1 | undefined): Codec<T[]> {
  const check = (value: unknown[]): T[] => {
    if (!item) return value as T[];
    return value.map((v, i) => {
      try {
        return validateWith(item, v) as T;
      } catch (error) {
        throw new ConfigError((error as ConfigError).code, `item ${i} ${(error as Error).message}`, { cause: error });
      }
    });
  };
  return {
    parse(raw) {
      const value = parseJson(raw, 'a JSON array');
      if (!Array.isArray(value)) throw invalid('is not a JSON array');
      return deepFreeze(check(value));
    },
    format(value) {
      if (!Array.isArray(value)) throw badArgument('is not an array');
      return stringifyJson(value, 'a JSON array');
    },
  };
}

/** JSON objects (the server's Json type holds objects only); with a schema, validated by it. */
export function jsonCodec<T>(schema: StandardSchemaV1 | undefined): Codec<T> {
  return {
    parse(raw) {
      const value = parseJson(raw, 'a JSON object');
      if (!isJsonObject(value)) throw invalid('is not a JSON object');
      return deepFreeze((schema ? validateWith(schema, value) : value) as T);
    },
    format(value) {
      const text = stringifyJson(value, 'a JSON object');
      if (!isJsonObject(JSON.parse(text))) throw badArgument('is not a JSON object (use array() for arrays)');
      return text;
    },
  };
}
