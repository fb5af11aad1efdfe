/** Boolean, Number, Enum and JSON values: their text as the server stores it, read and written. */

const BOOLEAN = /^(true|false)$/i;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** `true` or `false` in any case; undefined for anything else. */
export function parseBoolean(text: string): boolean | undefined {
  return BOOLEAN.test(text) ? text.toLowerCase() === 'true' : undefined;
}

/** A decimal number (`-12`, `3.5`, `.5`, `1e3`) that is finite as a double; undefined for anything else (`0x10`, `1e999`). */
export function parseNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** The shortest text that reads back as the same number (`1000`, `0.1`, `1e+21`). @throws RangeError when it is not finite. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError('is not a finite number');
  return String(value);
}

/** Allowed values of an Enum entry: its definition split on `,` or `|`, trimmed, empty parts dropped. */
export function enumValues(enumDefinition: string | null | undefined): string[] {
  if (!enumDefinition) return [];
  return enumDefinition
    .split(/[,|]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** An object that is neither null nor an array: what the Json type holds. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
