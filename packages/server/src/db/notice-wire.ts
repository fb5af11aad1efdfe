import type { ChangeNotice, EntryChange, SecretCipher } from '../core/index.js';
import { openedValue } from './stores/entry-store.js';

/**
 * The wire form of a change notice: NOTIFY payloads and change_log rows of PostgreSQL. A secret's
 * value travels and is kept sealed (a sixth element 1 marks it).
 */

type WireEntry = [key: string, value: string | null, generation: number, valueType: number, deleted: 0 | 1, secret?: 1];
interface WireNotice {
  k: ChangeNotice['kind'];
  s: string;
  v: string;
  t: number;
  e: WireEntry[];
}

function wireEntry(e: EntryChange, cipher: SecretCipher | null): WireEntry {
  const plain: WireEntry = [e.key, e.value, e.generation, e.valueType, e.deleted ? 1 : 0];
  if (!e.isSecret) return plain;
  if (e.value !== null && !cipher) throw new Error('a secret value needs the cipher to be announced');
  return [
    e.key,
    e.value === null ? null : (cipher as SecretCipher).seal(e.value),
    e.generation,
    e.valueType,
    plain[4],
    1,
  ];
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
    entries: wire.e.map(([key, value, generation, valueType, deleted, secret]): EntryChange => {
      const base = { key, generation, valueType, deleted: deleted === 1, timestamp: wire.t };
      if (secret !== 1) return { ...base, value };
      if (!cipher) return { ...base, value: null, isSecret: true, unreadable: true };
      const opened = openedValue(cipher, value, true);
      return { ...base, value: opened.rawValue, isSecret: true, ...(opened.unreadable ? { unreadable: true } : {}) };
    }),
  };
}
