import {
  ErrorCode,
  StandardResolutionReasons,
  type FlagValue,
  type FlagValueType,
  type JsonValue,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { typedValue, VALUE_TYPE_CODES, type WatchedChange } from './sdk.js';

/**
 * Which OpenFeature flag type reads each entry type: boolean ← Boolean; number ← Number; string ←
 * String, Enum, DateTime, TimeSpan (and entries registered without a type); object ← Array, Json.
 */
export const FLAG_TYPE_OF: Readonly<Record<WatchedChange['valueType'], FlagValueType>> = {
  Boolean: 'boolean',
  Number: 'number',
  String: 'string',
  Enum: 'string',
  DateTime: 'string',
  TimeSpan: 'string',
  Unknown: 'string',
  Array: 'object',
  Json: 'object',
};

/** What a resolution carries about the entry: its generation and its version. */
export type FlagMetadata = { generation: number; versionId: string };

/** The caller's default with an error: OpenFeature's way of failing without throwing. */
export function failed<T extends FlagValue>(
  value: T,
  errorCode: ErrorCode,
  errorMessage: string,
): ResolutionDetails<T> {
  return { value, reason: StandardResolutionReasons.ERROR, errorCode, errorMessage };
}

/** The JavaScript type a flag type's values have. */
function isOfType(value: unknown, type: FlagValueType): boolean {
  return type === 'object' ? typeof value === 'object' && value !== null : typeof value === type;
}

/**
 * A value of one flag type, or the default with the error that says why not: the type the caller
 * asked for against the value's, so a wrong type is TYPE_MISMATCH and never a wrong value.
 */
export function typedResolution<T extends FlagValue>(
  flagKey: string,
  requested: FlagValueType,
  defaultValue: T,
  value: unknown,
  found: Omit<ResolutionDetails<T>, 'value'>,
): ResolutionDetails<T> {
  if (!isOfType(value, requested)) {
    return failed(defaultValue, ErrorCode.TYPE_MISMATCH, `"${flagKey}" is not a ${requested} flag.`);
  }
  return { ...found, value: value as T };
}

/**
 * An entry of the live snapshot resolved in process: the entry's own value (STATIC), DEFAULT when
 * it has none, and the errors of a missing key, a wrong type or a stored value that does not read.
 */
export function resolveEntry<T extends FlagValue>(
  flagKey: string,
  requested: FlagValueType,
  defaultValue: T,
  entry: WatchedChange | undefined,
  versionId: string,
): ResolutionDetails<T> {
  if (!entry) return failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, `No flag "${flagKey}" in this version.`);
  if (FLAG_TYPE_OF[entry.valueType] !== requested) {
    return failed(
      defaultValue,
      ErrorCode.TYPE_MISMATCH,
      `"${flagKey}" is a ${entry.valueType} entry, read as ${FLAG_TYPE_OF[entry.valueType]}, not ${requested}.`,
    );
  }
  const flagMetadata: FlagMetadata = { generation: entry.generation, versionId };
  if (entry.value === null) return { value: defaultValue, reason: StandardResolutionReasons.DEFAULT, flagMetadata };
  const value = typedValue(VALUE_TYPE_CODES[entry.valueType], entry.value) as JsonValue | undefined;
  if (value === undefined) {
    return failed(
      defaultValue,
      ErrorCode.PARSE_ERROR,
      `The value of "${flagKey}" does not read as ${entry.valueType}.`,
    );
  }
  return typedResolution(flagKey, requested, defaultValue, value, {
    reason: StandardResolutionReasons.STATIC,
    variant: 'value',
    flagMetadata,
  });
}
