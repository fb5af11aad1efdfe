import { microsToIso } from '../platform/clock.js';
import type { EntryRecord } from './entries.js';
import { redactedValue, type SecretCipher } from './secrets.js';

/**
 * Which sides of an entry's change hold a secret's value, and so are stored sealed and shown
 * redacted: a side whose entry is secret, and the side before a change that turns the entry secret
 * (from then on that value is a secret's earlier one). The side after a change that turns a secret
 * into an ordinary entry is the value every answer shows from then on.
 */
export function secretSides(
  before: { readonly isSecret: boolean } | null,
  after: { readonly isSecret: boolean } | null,
): { readonly before: boolean; readonly after: boolean } {
  return { before: before?.isSecret === true || after?.isSecret === true, after: after?.isSecret === true };
}

/**
 * An entry as every answer shows it (REST, webhook payloads): a secret's value is never in it, only
 * `redacted: true` and the value's fingerprint (null when it has none or cannot be read). `redact`
 * hides the value of an entry that is not secret too (the side before a change that made it secret).
 */
export function entryAnswer(e: EntryRecord, cipher: SecretCipher, options: { redact?: boolean } = {}) {
  const hidden = e.isSecret || options.redact === true;
  return {
    id: e.id,
    key: e.key,
    name: e.name,
    rawValue: hidden ? null : e.rawValue,
    valueType: e.valueType,
    enumDefinition: e.enumDefinition,
    description: e.description,
    groupName: e.groupName,
    groupDescription: e.groupDescription,
    generation: e.generation,
    createdAt: microsToIso(e.createdAt),
    updatedAt: microsToIso(e.updatedAt),
    isSecret: e.isSecret,
    schema: e.schema,
    hasValue: e.rawValue !== null || e.unreadable === true,
    overrides: overridesAnswer(e, cipher, hidden),
    ...(hidden
      ? { redacted: true as const, fingerprint: redactedValue(cipher, e.rawValue, e.unreadable).fingerprint }
      : {}),
    ...(e.unreadable ? { unreadable: true as const } : {}),
  };
}

export type EntryAnswer = ReturnType<typeof entryAnswer>;

/**
 * An entry's overrides as answers show them: each override's value is a value of the entry, shown,
 * or redacted, as the entry's is (`hidden`: a secret's, or one to redact).
 */
export function overridesAnswer(
  e: Pick<EntryRecord, 'overrides' | 'isSecret'>,
  cipher: SecretCipher,
  hidden = e.isSecret,
) {
  return e.overrides.map((o) =>
    hidden
      ? { labels: o.labels, ...redactedValue(cipher, o.rawValue, o.unreadable) }
      : { labels: o.labels, rawValue: o.rawValue },
  );
}

/**
 * One value as the answers that list values show it (`value`: history, compare, restore and import
 * plans): a secret's is null, with `redacted: true` and its fingerprint. A value the caller sent
 * (`sent`: the next value of an import from a file) gets no fingerprint: comparing it with the
 * stored value's would tell whether a guess is right.
 */
export function valueAnswer(
  cipher: SecretCipher,
  side: { readonly rawValue: string | null; readonly isSecret: boolean; readonly unreadable?: boolean },
  options: { sent?: boolean } = {},
) {
  if (!side.isSecret) return { value: side.rawValue };
  const { fingerprint } = redactedValue(cipher, side.rawValue, side.unreadable);
  return {
    value: null,
    isSecret: true as const,
    redacted: true as const,
    ...(options.sent === true ? {} : { fingerprint }),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Any answer holding secret values in objects that say `isSecret: true` (audit `changes`, change
 * requests): each such `rawValue` becomes null with `redacted: true` and its fingerprint.
 */
export function redactSecrets<T>(value: T, cipher: SecretCipher): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isObject(v)) return v;
    const mapped = Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    if (mapped.isSecret !== true || !('rawValue' in mapped)) return mapped;
    const { unreadable, ...rest } = mapped;
    return {
      ...rest,
      ...redactedValue(cipher, typeof mapped.rawValue === 'string' ? mapped.rawValue : null, unreadable === true),
      ...(unreadable === true ? { unreadable: true } : {}),
    };
  };
  return walk(value) as T;
}
