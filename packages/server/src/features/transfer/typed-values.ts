import { ValueType, VALUE_TYPE_NAMES, type ValueTypeCode } from '../entries/index.js';

/**
 * Values in exported files are typed (numbers, booleans, arrays and objects as JSON/YAML values),
 * stored values are text: these convert between the two and compare by meaning, so exporting a
 * version and importing the file again changes nothing even where the text would differ
 * (`1e3` and `1000`, `True` and `true`, JSON formatting).
 */
export function toTyped(valueType: number, raw: string | null): unknown {
  if (raw === null) return null;
  switch (valueType) {
    case ValueType.Number: {
      const n = Number(raw);
      return Number.isFinite(n) && String(n) === raw ? n : raw;
    }
    case ValueType.Boolean:
      return /^true$/i.test(raw) ? true : /^false$/i.test(raw) ? false : raw;
    case ValueType.Array:
    case ValueType.Json:
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
  if ((valueType === ValueType.Array || valueType === ValueType.Json) && typeof value === 'object') {
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
    case ValueType.Number:
      return a.trim() !== '' && b.trim() !== '' && Number(a) === Number(b);
    case ValueType.Boolean:
      return a.toLowerCase() === b.toLowerCase();
    case ValueType.Array:
    case ValueType.Json:
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
export function inferValueType(value: unknown): ValueTypeCode {
  if (typeof value === 'number') return ValueType.Number;
  if (typeof value === 'boolean') return ValueType.Boolean;
  if (Array.isArray(value)) return ValueType.Array;
  if (value !== null && typeof value === 'object') return ValueType.Json;
  return ValueType.String;
}

export function valueTypeName(code: number): string {
  return VALUE_TYPE_NAMES[code as ValueTypeCode] ?? 'Unknown';
}

/** A value type by its name (any case) or its number; undefined when neither. */
export function parseValueType(name: unknown): ValueTypeCode | undefined {
  if (typeof name === 'number' && Number.isInteger(name) && name >= 0 && name <= 8) return name as ValueTypeCode;
  if (typeof name !== 'string') return undefined;
  if (/^[0-8]$/.test(name)) return Number(name) as ValueTypeCode;
  const found = (Object.entries(VALUE_TYPE_NAMES) as Array<[string, string]>).find(
    ([, label]) => label.toLowerCase() === name.toLowerCase(),
  );
  return found ? (Number(found[0]) as ValueTypeCode) : undefined;
}
