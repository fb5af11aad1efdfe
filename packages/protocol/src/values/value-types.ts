import { ValueType } from '../gen/konfigo/client/service_pb.js';

/**
 * The value types by name. Their codes are the protocol's ValueType numbers, which are also the REST
 * API's `valueType` codes; the names are what files, the console and the SDK show.
 */
export const VALUE_TYPE_CODES = {
  Unknown: ValueType.UNKNOWN,
  String: ValueType.STRING,
  Boolean: ValueType.BOOLEAN,
  DateTime: ValueType.DATE_TIME,
  TimeSpan: ValueType.TIME_SPAN,
  Enum: ValueType.ENUM,
  Number: ValueType.NUMBER,
  Array: ValueType.ARRAY,
  Json: ValueType.JSON,
} as const;

/** `'Unknown'`, `'String'`, `'Boolean'`, `'DateTime'`, `'TimeSpan'`, `'Enum'`, `'Number'`, `'Array'` or `'Json'`. */
export type ValueTypeName = keyof typeof VALUE_TYPE_CODES;

/** The name of each value type code. */
export const VALUE_TYPE_NAMES: Readonly<Record<ValueType, ValueTypeName>> = Object.freeze(
  Object.fromEntries(Object.entries(VALUE_TYPE_CODES).map(([name, code]) => [code, name])) as Record<
    ValueType,
    ValueTypeName
  >,
);

/** True for the code of one of the nine value types. */
export function isValueType(code: unknown): code is ValueType {
  return typeof code === 'number' && Number.isInteger(code) && code >= ValueType.UNKNOWN && code <= ValueType.JSON;
}

/** The name of a value type code; `'Unknown'` for a code that is none. */
export function valueTypeName(code: number): ValueTypeName {
  return isValueType(code) ? VALUE_TYPE_NAMES[code] : 'Unknown';
}

/** A value type by its name (any case) or its code (a number or its digit); undefined when neither. */
export function parseValueType(nameOrCode: unknown): ValueType | undefined {
  if (isValueType(nameOrCode)) return nameOrCode;
  if (typeof nameOrCode !== 'string') return undefined;
  if (/^[0-8]$/.test(nameOrCode)) return Number(nameOrCode) as ValueType;
  const wanted = nameOrCode.toLowerCase();
  const name = (Object.keys(VALUE_TYPE_CODES) as ValueTypeName[]).find((n) => n.toLowerCase() === wanted);
  return name === undefined ? undefined : VALUE_TYPE_CODES[name];
}
