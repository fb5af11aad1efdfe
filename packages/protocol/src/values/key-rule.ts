/** A key is at most this many characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_KEY_LENGTH = 512;

/**
 * Segments no key may have: in JavaScript they name an object's prototype, so a program that builds
 * objects from key segments (an export, an appsettings.json reader, a config binder) could be led to
 * write on every object of its process.
 */
const RESERVED_KEY_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype`: names no key segment may have. */
export function isReservedKeySegment(segment: string): boolean {
  return RESERVED_KEY_SEGMENTS.has(segment);
}

/**
 * The one rule for keys, wherever a key is created (REST, CreateVersion, imports, restores, the
 * console): 1–512 characters of non-empty segments joined by `:`, none of them a reserved segment.
 * Returns what is wrong, or null when the key is fine.
 */
export function checkKey(key: string): string | null {
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) return `must be 1 to ${MAX_KEY_LENGTH} characters long`;
  const segments = key.split(':');
  if (segments.some((segment) => segment.trim() === '')) return 'must be non-empty segments joined by ":"';
  const reserved = segments.find(isReservedKeySegment);
  if (reserved !== undefined) {
    return `must not have the segment "${reserved}" (__proto__, constructor and prototype are reserved)`;
  }
  return null;
}
