declare const nullPrototype: unique symbol;

/**
 * An object keyed by names that come from outside (entry keys, file contents, claims, settings):
 * it has no prototype, so `__proto__`, `constructor` and `prototype` are ordinary own keys and no
 * write can reach `Object.prototype`. The brand is what the lint rule `local/no-unsafe-key-write`
 * recognises; an ordinary object, or one spread from a dictionary, does not carry it at run time.
 */
export type Dictionary<T> = { [key: string]: T } & { readonly [nullPrototype]: true };

/** A dictionary (no prototype), filled from `entries` in order; a later entry of a key wins. */
export function dictionary<T>(entries: Iterable<readonly [string, T]> = []): Dictionary<T> {
  const result = Object.create(null) as Dictionary<T>;
  for (const [key, value] of entries) result[key] = value;
  return result;
}
