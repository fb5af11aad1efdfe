import { ValueType } from '../gen/konfigo/client/service_pb.js';
import { isDateTime } from './date-time.js';
import { enumValues, isJsonObject, parseBoolean, parseNumber } from './scalar-values.js';
import { isTimeSpan } from './time-span.js';

/** A raw value is at most 256 KiB: this many characters (Unicode code points). */
export const MAX_RAW_VALUE_LENGTH = 256 * 1024;

/** True when a text has more than `max` Unicode code points; counted only when its UTF-16 length could exceed it. */
export function exceedsLength(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

function isJsonOf(text: string, shape: 'array' | 'object'): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return shape === 'array' ? Array.isArray(value) : isJsonObject(value);
  } catch {
    return false;
  }
}

/**
 * The one check of a raw value against its type, for the server (REST, CreateVersion, imports,
 * restores), the console (as the user types) and the SDK: what is wrong, as a message the caller puts
 * the key in front of, or null when the value fits. `null` fits every type.
 */
export function checkValue(valueType: number, rawValue: string | null, enumDefinition: string | null): string | null {
  if (rawValue === null) return null;
  if (exceedsLength(rawValue, MAX_RAW_VALUE_LENGTH)) return `must be at most ${MAX_RAW_VALUE_LENGTH} characters long`;
  switch (valueType) {
    case ValueType.UNKNOWN:
    case ValueType.STRING:
      return null;
    case ValueType.BOOLEAN:
      return parseBoolean(rawValue) === undefined ? 'must be true or false' : null;
    case ValueType.NUMBER:
      return parseNumber(rawValue) === undefined ? 'must be a decimal number' : null;
    case ValueType.DATE_TIME:
      return isDateTime(rawValue) ? null : 'must be an ISO 8601 date and time';
    case ValueType.TIME_SPAN:
      return isTimeSpan(rawValue)
        ? null
        : 'must be a time span [-][d.]HH:mm:ss[.fffffff] within ±10675199.02:48:05.4775807';
    case ValueType.ENUM: {
      const allowed = enumValues(enumDefinition);
      if (allowed.length === 0) return 'cannot be set: the entry defines no allowed values';
      return allowed.includes(rawValue) ? null : `must be one of: ${allowed.join(', ')}`;
    }
    case ValueType.ARRAY:
      return isJsonOf(rawValue, 'array') ? null : 'must be a JSON array';
    case ValueType.JSON:
      return isJsonOf(rawValue, 'object') ? null : 'must be a JSON object';
    default:
      return 'has an unknown value type';
  }
}
