import { redactedValue, type SecretCipher } from '../../core/index.js';
import { openedValue } from './entry-store.js';

/**
 * Secret values inside stored JSON (audit `changes`, a change request's changes): every object that
 * says `isSecret: true` keeps its `rawValue` sealed, as `sealedValue`, with `rawValue` null.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mapObjects(value: unknown, fn: (object: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => mapObjects(item, fn));
  if (!isObject(value)) return value;
  const mapped = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapObjects(v, fn)]));
  return fn(mapped);
}

export function sealSecrets<T>(value: T, cipher: SecretCipher): T {
  return mapObjects(value, (o) =>
    o.isSecret === true && typeof o.rawValue === 'string'
      ? { ...o, rawValue: null, sealedValue: cipher.seal(o.rawValue) }
      : o,
  ) as T;
}

export function openSecrets<T>(value: T, cipher: SecretCipher): T {
  return mapObjects(value, (o) => {
    if (typeof o.sealedValue !== 'string') return o;
    const { sealedValue, ...rest } = o;
    return { ...rest, ...openedValue(cipher, sealedValue, true) };
  }) as T;
}

/** Stored JSON with every sealed value's data key wrapped by the current master key; null when unchanged. */
export function rewrapSecrets(text: string, cipher: SecretCipher): { text: string; count: number } | null {
  if (!text.includes('"sealedValue"')) return null;
  let count = 0;
  const value = mapObjects(JSON.parse(text), (o) => {
    if (typeof o.sealedValue !== 'string') return o;
    const rewrapped = cipher.rewrap(o.sealedValue);
    if (rewrapped === null) return o;
    count += 1;
    return { ...o, sealedValue: rewrapped };
  });
  return count === 0 ? null : { text: JSON.stringify(value), count };
}

/**
 * A webhook delivery body with the values of one entry redacted, as a delivery of a secret shows them
 * (`rawValue` null, `redacted`, `fingerprint`): for an entry that has turned secret. Delivery bodies
 * hold no sealed values (they are sent as they are); null when nothing changed.
 */
export function redactDeliveredEntry(payload: string, entryId: string, cipher: SecretCipher): string | null {
  let changed = false;
  const redactedOne = (o: unknown): unknown => {
    if (!isObject(o) || o.redacted === true || !('rawValue' in o)) return o;
    changed = true;
    return { ...o, ...redactedValue(cipher, typeof o.rawValue === 'string' ? o.rawValue : null) };
  };
  // The side's value, and its overrides' values (values of the entry too).
  const redacted = (side: unknown): unknown => {
    const done = redactedOne(side);
    if (!isObject(done) || !Array.isArray(done.overrides)) return done;
    return { ...done, overrides: done.overrides.map(redactedOne) };
  };
  const value = mapObjects(JSON.parse(payload), (o) =>
    o.entryId === entryId ? { ...o, before: redacted(o.before), after: redacted(o.after) } : o,
  );
  return changed ? JSON.stringify(value) : null;
}
