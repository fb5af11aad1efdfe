import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigError } from '../errors.js';
import { parseDateTime } from './date-time.js';
import { deepFreeze } from './deep-freeze.js';
import { formatTimeSpan, parseTimeSpan } from './time-span.js';

/**
 * How one value type is read from and written to the raw text the server stores. `parse` throws
 * INVALID_VALUE (a remote value that does not fit), `format` INVALID_ARGUMENT (a value from code);
 * their messages name no subject ("is not a decimal number"): the caller puts the key or builder
 * in front. Parsed values are deeply frozen.
 */
export interface Codec<T> {
  parse(raw: string): T;
  format(value: T): string;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEAN = /^(true|false)$/i;
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

export const stringCodec: Codec<string> = {
  parse: (raw) => raw,
  format(value) {
    if (typeof value !== 'string') throw badArgument('is not a string');
    return value;
  },
};

export const booleanCodec: Codec<boolean> = {
  parse(raw) {
    if (!BOOLEAN.test(raw)) throw invalid('is not true or false');
    return raw.toLowerCase() === 'true';
  },
  format(value) {
    if (typeof value !== 'boolean') throw badArgument('is not a boolean');
    return String(value);
  },
};

export const numberCodec: Codec<number> = {
  parse(raw) {
    const value = Number(raw);
    if (!NUMBER.test(raw) || !Number.isFinite(value)) throw invalid('is not a decimal number');
    return value;
  },
  format(value) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw badArgument('is not a finite number');
    return String(value);
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
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw badArgument('is not a valid Date');
    return value.toISOString();
  },
};

export const timeSpanCodec: Codec<number> = {
  parse(raw) {
    const ms = parseTimeSpan(raw);
    if (ms === undefined) throw invalid('is not a time span [-][d.]HH:mm:ss[.fffffff]');
    return ms;
  },
  format(value) {
    if (typeof value !== 'number') throw badArgument('is not a number of milliseconds');
    try {
      return formatTimeSpan(value);
    } catch (error) {
      throw badArgument((error as Error).message);
    }
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
  return text;
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

const isJsonObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

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
