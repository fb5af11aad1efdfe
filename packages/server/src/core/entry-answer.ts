import { microsToIso } from '../platform/clock.js';
import type { EntryRecord } from './entries.js';
import { redactedValue, type SecretCipher } from './secrets.js';

/**
 * An entry as every answer shows it (REST, webhook payloads): a secret's value is never in it, only
 * `redacted: true` and the value's fingerprint (null when it has none or cannot be read).
 */
export function entryAnswer(e: EntryRecord, cipher: SecretCipher) {
  return {
    id: e.id,
    key: e.key,
    name: e.name,
    rawValue: e.isSecret ? null : e.rawValue,
    valueType: e.valueType,
    enumDefinition: e.enumDefinition,
    description: e.description,
    groupName: e.groupName,
    groupDescription: e.groupDescription,
    generation: e.generation,
    createdAt: microsToIso(e.createdAt),
    updatedAt: microsToIso(e.updatedAt),
    isSecret: e.isSecret,
    hasValue: e.rawValue !== null || e.unreadable === true,
    ...(e.isSecret
      ? { redacted: true as const, fingerprint: redactedValue(cipher, e.rawValue, e.unreadable).fingerprint }
      : {}),
    ...(e.unreadable ? { unreadable: true as const } : {}),
  };
}

export type EntryAnswer = ReturnType<typeof entryAnswer>;

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
