/**
 * The server's rules for values, keys and form fields (CONTRACT.md section 4), checked in the browser as
 * the user types. The console must not import server code, so the rules live here once for every form
 * of the console; value-rules.e2e.test.ts sends the same samples to the real server and checks that
 * both agree.
 */

/** Value types: the REST code equals the gRPC enum number. */
export const ValueType = {
  Unknown: 0,
  String: 1,
  Boolean: 2,
  DateTime: 3,
  TimeSpan: 4,
  Enum: 5,
  Number: 6,
  Array: 7,
  Json: 8,
} as const;
export type ValueTypeCode = (typeof ValueType)[keyof typeof ValueType];

export const VALUE_TYPE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(ValueType).map(([name, code]) => [code, name]),
);

/** Allowed values of an Enum entry: split on `,` or `|`, trimmed, empty parts dropped. */
export function enumValues(enumDefinition: string | null): string[] {
  if (!enumDefinition) return [];
  return enumDefinition
    .split(/[,|]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
/** .NET TimeSpan text: [-][d.]HH:mm:ss[.fffffff] */
export const TIME_SPAN = /^(-?)(?:(\d{1,8})\.)?([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,7}))?$/;

function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  const daysInMonth = new Date(Date.UTC(Number(year), m, 0)).getUTCDate();
  return d <= daysInMonth && Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59;
}

function parsesAs(value: string, shape: 'array' | 'object'): boolean {
  try {
    const parsed: unknown = JSON.parse(value);
    if (shape === 'array') return Array.isArray(parsed);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** What is wrong with a raw value for its type, or null when it fits. `null` fits every type. */
export function checkValue(valueType: number, rawValue: string | null, enumDefinition: string | null): string | null {
  if (rawValue === null) return null;
  switch (valueType) {
    case ValueType.Unknown:
    case ValueType.String:
      return null;
    case ValueType.Boolean:
      return /^(true|false)$/i.test(rawValue) ? null : 'must be true or false';
    case ValueType.Number:
      return NUMBER.test(rawValue) && Number.isFinite(Number(rawValue)) ? null : 'must be a decimal number';
    case ValueType.DateTime:
      return isDateTime(rawValue) ? null : 'must be an ISO 8601 date and time';
    case ValueType.TimeSpan:
      return TIME_SPAN.test(rawValue) ? null : 'must be a time span [-][d.]HH:mm:ss[.fffffff]';
    case ValueType.Enum: {
      const allowed = enumValues(enumDefinition);
      if (allowed.length === 0) return 'cannot be set: the entry defines no allowed values';
      return allowed.includes(rawValue) ? null : `must be one of: ${allowed.join(', ')}`;
    }
    case ValueType.Array:
      return parsesAs(rawValue, 'array') ? null : 'must be a JSON array';
    case ValueType.Json:
      return parsesAs(rawValue, 'object') ? null : 'must be a JSON object';
    default:
      return 'has an unknown value type';
  }
}

/** Segments no key may have: in JavaScript they name an object's prototype. */
const RESERVED_KEY_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A key is 1–512 characters of non-empty segments joined by `:`, none of them __proto__, constructor or prototype. */
export function checkKey(key: string): string | null {
  if (key.length < 1 || key.length > 512) return 'must be 1 to 512 characters long';
  const segments = key.split(':');
  if (segments.some((segment) => segment.trim() === '')) return 'must be non-empty segments joined by ":"';
  const reserved = segments.find((segment) => RESERVED_KEY_SEGMENTS.has(segment));
  if (reserved !== undefined) {
    return `must not have the segment "${reserved}" (__proto__, constructor and prototype are reserved)`;
  }
  return null;
}

/** A rawValue is at most 256 KiB. */
export const MAX_RAW_VALUE_LENGTH = 256 * 1024;
