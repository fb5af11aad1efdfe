import type { ChangeNotice } from '../core/index.js';

/** The wire form of a change notice: NOTIFY payloads and change_log rows of PostgreSQL. */

type WireEntry = [key: string, value: string | null, generation: number, valueType: number, deleted: 0 | 1];
interface WireNotice {
  k: ChangeNotice['kind'];
  s: string;
  v: string;
  t: number;
  e: WireEntry[];
}

/** Compact JSON of a notice: entries of one notice share its timestamp. */
export function encodeNotice(notice: ChangeNotice): string {
  const wire: WireNotice = {
    k: notice.kind,
    s: notice.serviceId,
    v: notice.versionId,
    t: notice.timestamp,
    e: notice.entries.map((e) => [e.key, e.value, e.generation, e.valueType, e.deleted ? 1 : 0]),
  };
  return JSON.stringify(wire);
}

export function decodeNotice(text: string): ChangeNotice {
  const wire = JSON.parse(text) as WireNotice;
  return {
    kind: wire.k,
    serviceId: wire.s,
    versionId: wire.v,
    timestamp: wire.t,
    entries: wire.e.map(([key, value, generation, valueType, deleted]) => ({
      key,
      value,
      generation,
      valueType,
      deleted: deleted === 1,
      timestamp: wire.t,
    })),
  };
}
