import type { ChangeNotice, EntryChange, EntryOverride, SecretCipher } from '../core/index.js';
import { openedValue } from './stores/entry-store.js';

/**
 * The wire form of a change notice: NOTIFY payloads and change_log rows of PostgreSQL. A secret's
 * value travels and is kept sealed (a sixth element 1 marks it), and so do its overrides' values (a
 * seventh element, [labels, value] pairs, present only for an entry with overrides).
 */

export type WireOverride = [labels: Record<string, string>, value: string | null];
export type WireEntry = [
  key: string,
  value: string | null,
  generation: number,
  valueType: number,
  deleted: 0 | 1,
  secret?: 0 | 1,
  overrides?: WireOverride[],
];
interface WireNotice {
  k: ChangeNotice['kind'];
  s: string;
  v: string;
  t: number;
  e: WireEntry[];
}

function wireEntry(e: EntryChange, cipher: SecretCipher | null): WireEntry {
  const deleted = e.deleted ? 1 : 0;
  const overrides = e.overrides?.map((o): WireOverride => [o.labels, o.rawValue]);
  if (!e.isSecret) {
    return overrides
      ? [e.key, e.value, e.generation, e.valueType, deleted, 0, overrides]
      : [e.key, e.value, e.generation, e.valueType, deleted];
  }
  const seal = (value: string | null) => {
    if (value !== null && !cipher) throw new Error('a secret value needs the cipher to be announced');
    return value === null ? null : (cipher as SecretCipher).seal(value);
  };
  const sealed = overrides?.map(([labels, value]): WireOverride => [labels, seal(value)]);
  return sealed
    ? [e.key, seal(e.value), e.generation, e.valueType, deleted, 1, sealed]
    : [e.key, seal(e.value), e.generation, e.valueType, deleted, 1];
}

/**
 * A wire entry with its value and its overrides' values passed through `fn` (null stays null),
 * marked secret: sealing an entry that turned secret, re-wrapping a secret's sealed values.
 */
export function secretWireEntry(e: WireEntry, fn: (value: string) => string): WireEntry {
  const map = (value: string | null) => (value === null ? null : fn(value));
  const overrides = e[6]?.map(([labels, value]): WireOverride => [labels, map(value)]);
  return overrides ? [e[0], map(e[1]), e[2], e[3], e[4], 1, overrides] : [e[0], map(e[1]), e[2], e[3], e[4], 1];
}

/** A wire entry's overrides as the application reads them: a secret's opened (or unreadable). */
function overridesOf(wire: WireOverride[] | undefined, secret: boolean, cipher: SecretCipher | null) {
  if (!wire) return {};
  const overrides = wire.map(([labels, value]): EntryOverride => {
    if (!secret || value === null) return { labels, rawValue: value };
    if (!cipher) return { labels, rawValue: null, unreadable: true };
    return { labels, ...openedValue(cipher, value, true) };
  });
  return { overrides };
}

/** Compact JSON of a notice: entries of one notice share its timestamp. */
export function encodeNotice(notice: ChangeNotice, cipher: SecretCipher | null = null): string {
  const wire: WireNotice = {
    k: notice.kind,
    s: notice.serviceId,
    v: notice.versionId,
    t: notice.timestamp,
    e: notice.entries.map((e) => wireEntry(e, cipher)),
  };
  return JSON.stringify(wire);
}

export function decodeNotice(text: string, cipher: SecretCipher | null = null): ChangeNotice {
  const wire = JSON.parse(text) as WireNotice;
  return {
    kind: wire.k,
    serviceId: wire.s,
    versionId: wire.v,
    timestamp: wire.t,
    entries: wire.e.map(([key, value, generation, valueType, deleted, secret, overrides]): EntryChange => {
      const base = {
        key,
        generation,
        valueType,
        deleted: deleted === 1,
        timestamp: wire.t,
        ...overridesOf(overrides, secret === 1, cipher),
      };
      if (secret !== 1) return { ...base, value };
      if (!cipher) return { ...base, value: null, isSecret: true, unreadable: true };
      const opened = openedValue(cipher, value, true);
      return { ...base, value: opened.rawValue, isSecret: true, ...(opened.unreadable ? { unreadable: true } : {}) };
    }),
  };
}
