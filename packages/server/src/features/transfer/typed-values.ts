import { formatNumber, parseBoolean, parseNumber, ValueType } from '../../protocol.js';

/**
 * Values in exported files are typed (numbers, booleans, arrays and objects as JSON/YAML values),
 * stored values are text: these convert between the two and compare by meaning, so exporting a
 * version and importing the file again changes nothing even where the text would differ
 * (`1e3` and `1000`, `True` and `true`, JSON formatting).
 */
export function toTyped(valueType: number, raw: string | null): unknown {
  if (raw === null) return null;
  switch (valueType) {
    case ValueType.NUMBER: {
      // Only a number's own shortest text becomes a number: `1e3` stays text, so it exports as written.
      const n = parseNumber(raw);
      return n !== undefined && formatNumber(n) === raw ? n : raw;
    }
    case ValueType.BOOLEAN:
      return parseBoolean(raw) ?? raw;
    case ValueType.ARRAY:
    case ValueType.JSON:
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

/** The stored text of a typed value; a value of the wrong shape yields text the type check refuses. */
export function fromTyped(valueType: number, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if ((valueType === ValueType.ARRAY || valueType === ValueType.JSON) && typeof value === 'object') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** True when two stored texts mean the same value of the type. */
export function sameValue(valueType: number, a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  switch (valueType) {
    case ValueType.NUMBER: {
      const n = parseNumber(a);
      return n !== undefined && n === parseNumber(b);
    }
    case ValueType.BOOLEAN: {
      const value = parseBoolean(a);
      return value !== undefined && value === parseBoolean(b);
    }
    case ValueType.ARRAY:
    case ValueType.JSON:
      try {
        return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
      } catch {
        return false;
      }
    default:
      return false;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The value type a typed value suggests, for a key created by an import without metadata. */
export function inferValueType(value: unknown): ValueType {
  if (typeof value === 'number') return ValueType.NUMBER;
  if (typeof value === 'boolean') return ValueType.BOOLEAN;
  if (Array.isArray(value)) return ValueType.ARRAY;
  if (value !== null && typeof value === 'object') return ValueType.JSON;
  return ValueType.STRING;
}
