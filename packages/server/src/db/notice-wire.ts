import type { ChangeNotice, EntryChange, EntryOverride, EntryRollout, SecretCipher } from '../core/index.js';
import { openedValue } from './stores/entry-store.js';

/**
 * The wire form of a change notice: NOTIFY payloads and change_log rows of PostgreSQL. A secret's
 * value travels and is kept sealed (a sixth element 1 marks it), and so do its overrides' values (a
 * seventh element, [labels, value] pairs, present only for an entry with overrides) and its running
 * rollout's new value (an eighth element, present only with a rollout: the rollout and the state
 * before its move, EntryChange.rollout and .before).
 */

export type WireOverride = [labels: Record<string, string>, value: string | null];
export type WireEntry = [
  key: string,
  value: string | null,
  generation: number,
  valueType: number,
  deleted: 0 | 1,
  secret?: 0 | 1,
  overrides?: WireOverride[] | null,
  rollout?: WireRollout,
];
type WireRolloutSlot = [id: string, value: string | null, percent: number, match: Record<string, string>];
interface WireRollout {
  r?: WireRolloutSlot;
  /** EntryChange.before: the generation, and the rollout slot (its value left out: never read). */
  b?: [generation: number, rollout: WireRolloutSlot | null];
}
interface WireNotice {
  k: ChangeNotice['kind'];
  s: string;
  v: string;
  t: number;
  e: WireEntry[];
}

const slotOf = (r: EntryRollout, value: string | null): WireRolloutSlot => [r.id, value, r.percent, r.match];

function wireRollout(e: EntryChange, seal: (value: string | null) => string | null): WireRollout | undefined {
  if (!e.rollout && !e.before) return undefined;
  return {
    ...(e.rollout ? { r: slotOf(e.rollout, seal(e.rollout.rawValue)) } : {}),
    ...(e.before
      ? { b: [e.before.generation, e.before.rollout ? slotOf(e.before.rollout, null) : null] as WireRollout['b'] }
      : {}),
  };
}

function wireEntry(e: EntryChange, cipher: SecretCipher | null): WireEntry {
  const deleted = e.deleted ? 1 : 0;
  const overrides = e.overrides?.map((o): WireOverride => [o.labels, o.rawValue]);
  if (!e.isSecret) {
    const rollout = wireRollout(e, (value) => value);
    if (rollout) return [e.key, e.value, e.generation, e.valueType, deleted, 0, overrides ?? null, rollout];
    return overrides
      ? [e.key, e.value, e.generation, e.valueType, deleted, 0, overrides]
      : [e.key, e.value, e.generation, e.valueType, deleted];
  }
  const seal = (value: string | null) => {
    if (value !== null && !cipher) throw new Error('a secret value needs the cipher to be announced');
    return value === null ? null : (cipher as SecretCipher).seal(value);
  };
  const sealed = overrides?.map(([labels, value]): WireOverride => [labels, seal(value)]);
  const rollout = wireRollout(e, seal);
  if (rollout) return [e.key, seal(e.value), e.generation, e.valueType, deleted, 1, sealed ?? null, rollout];
  return sealed
    ? [e.key, seal(e.value), e.generation, e.valueType, deleted, 1, sealed]
    : [e.key, seal(e.value), e.generation, e.valueType, deleted, 1];
}

/**
 * A wire entry with its value, its overrides' values and its rollout's new value passed through `fn`
 * (null stays null), marked secret: sealing an entry that turned secret, re-wrapping a secret's
 * sealed values.
 */
export function secretWireEntry(e: WireEntry, fn: (value: string) => string): WireEntry {
  const map = (value: string | null) => (value === null ? null : fn(value));
  const overrides = e[6]?.map(([labels, value]): WireOverride => [labels, map(value)]);
  const rollout = e[7];
  if (rollout) {
    const r = rollout.r;
    const mapped: WireRollout = { ...rollout, ...(r ? { r: [r[0], map(r[1]), r[2], r[3]] } : {}) };
    return [e[0], map(e[1]), e[2], e[3], e[4], 1, overrides ?? null, mapped];
  }
  return overrides ? [e[0], map(e[1]), e[2], e[3], e[4], 1, overrides] : [e[0], map(e[1]), e[2], e[3], e[4], 1];
}

/** A wire entry's overrides as the application reads them: a secret's opened (or unreadable). */
function overridesOf(wire: WireOverride[] | null | undefined, secret: boolean, cipher: SecretCipher | null) {
  if (!wire) return {};
  const overrides = wire.map(([labels, value]): EntryOverride => {
    if (!secret || value === null) return { labels, rawValue: value };
    if (!cipher) return { labels, rawValue: null, unreadable: true };
    return { labels, ...openedValue(cipher, value, true) };
  });
  return { overrides };
}

/** A wire entry's rollout and the state before its move, a secret's new value opened (or unreadable). */
function rolloutOf(wire: WireRollout | undefined, secret: boolean, cipher: SecretCipher | null) {
  if (!wire) return {};
  const slot = ([id, value, percent, match]: WireRolloutSlot): EntryRollout => {
    const base = { id, percent, match };
    if (!secret || value === null) return { ...base, rawValue: value };
    if (!cipher) return { ...base, rawValue: null, unreadable: true };
    const opened = openedValue(cipher, value, true);
    return { ...base, rawValue: opened.rawValue, ...(opened.unreadable ? { unreadable: true as const } : {}) };
  };
  return {
    ...(wire.r ? { rollout: slot(wire.r) } : {}),
    ...(wire.b ? { before: { generation: wire.b[0], rollout: wire.b[1] ? slot(wire.b[1]) : null } } : {}),
  };
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
    entries: wire.e.map(([key, value, generation, valueType, deleted, secret, overrides, rollout]): EntryChange => {
      const base = {
        key,
        generation,
        valueType,
        deleted: deleted === 1,
        timestamp: wire.t,
        ...overridesOf(overrides, secret === 1, cipher),
        ...rolloutOf(rollout, secret === 1, cipher),
      };
      if (secret !== 1) return { ...base, value };
      if (!cipher) return { ...base, value: null, isSecret: true, unreadable: true };
      const opened = openedValue(cipher, value, true);
      return { ...base, value: opened.rawValue, isSecret: true, ...(opened.unreadable ? { unreadable: true } : {}) };
    }),
  };
}
