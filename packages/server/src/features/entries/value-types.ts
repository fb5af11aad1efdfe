/** Value types: the REST code equals the gRPC enum number (SPEC.md, "Value types"). */
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

export const VALUE_TYPE_NAMES: Readonly<Record<ValueTypeCode, string>> = {
  0: 'Unknown',
  1: 'String',
  2: 'Boolean',
  3: 'DateTime',
  4: 'TimeSpan',
  5: 'Enum',
  6: 'Number',
  7: 'Array',
  8: 'Json',
};

export function isValueType(code: number): code is ValueTypeCode {
  return Number.isInteger(code) && code >= 0 && code <= 8;
}

/** Allowed values of an Enum entry: split on `,` or `|`, trimmed, empty parts dropped. */
export function enumValues(enumDefinition: string | null): string[] {
  if (!enumDefinition) return [];
  return enumDefinition
    .split(/[,|]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// ISO 8601 date, optionally with time and offset: 2026-11-21, 2026-11-21T12:00, 2026-11-21T12:00:00.123+01:00
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
// .NET TimeSpan text: [-][d.]HH:mm:ss[.fffffff]
const TIME_SPAN = /^(-?)(?:(\d{1,8})\.)?([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,7}))?$/;
/** TimeSpan.MaxValue in ticks (100 ns): 10675199.02:48:05.4775807; MinValue is one tick further. */
const MAX_TIME_SPAN_TICKS = 9_223_372_036_854_775_807n;

/** A .NET TimeSpan in its invariant text form, within TimeSpan.MinValue…MaxValue. */
function isTimeSpan(value: string): boolean {
  const match = TIME_SPAN.exec(value);
  if (!match) return false;
  const [, sign, days = '0', hours, minutes, seconds, fraction = ''] = match;
  const wholeSeconds =
    ((BigInt(days) * 24n + BigInt(hours ?? 0)) * 60n + BigInt(minutes ?? 0)) * 60n + BigInt(seconds ?? 0);
  const ticks = wholeSeconds * 10_000_000n + BigInt(fraction.padEnd(7, '0'));
  return ticks <= MAX_TIME_SPAN_TICKS + (sign === '-' ? 1n : 0n);
}

function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
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

/**
 * Checks a raw value against its type (CONTRACT.md section 4). Returns a message for the client
 * when it does not fit, or null when it does. `null` fits every type.
 */
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
      return isTimeSpan(rawValue)
        ? null
        : 'must be a time span [-][d.]HH:mm:ss[.fffffff] within ±10675199.02:48:05.4775807';
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

/**
 * Segments no key may have: in JavaScript they name an object's prototype, so a file or an SDK that
 * builds objects from key segments (as every export, appsettings.json reader and config binder does)
 * could be led to write on every object of its process.
 */
const RESERVED_KEY_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The one rule for keys, applied wherever a key is created (REST, CreateVersion, imports, restores):
 * 1–512 characters of non-empty segments joined by `:`, none of them a reserved segment.
 */
export function checkKey(key: string): string | null {
  if (key.length < 1 || key.length > 512) return 'must be 1 to 512 characters long';
  const segments = key.split(':');
  if (segments.some((segment) => segment.trim() === '')) return 'must be non-empty segments joined by ":"';
  const reserved = segments.find((segment) => RESERVED_KEY_SEGMENTS.has(segment));
  if (reserved !== undefined)
    return `must not have the segment "${reserved}" (__proto__, constructor and prototype are reserved)`;
  return null;
}
