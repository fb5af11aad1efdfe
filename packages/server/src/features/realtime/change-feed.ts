import type { Tx } from '../../db/database.js';
import type { ChangeHub, ChangeNotice } from './change-hub.js';

/**
 * How committed changes reach the change hub of every instance.
 * - Embedded database (one instance): published in-process right after the commit.
 * - PostgreSQL (one or many instances): announced with NOTIFY inside the writing transaction and
 *   delivered by every instance's LISTEN connection, in commit order, to its own hub.
 */
export interface ChangeFeed {
  /** Inside the writing transaction, after its last statement. */
  announce(tx: Tx, notices: readonly ChangeNotice[]): Promise<void>;
  /** After the commit. */
  committed(notices: readonly ChangeNotice[]): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createLocalChangeFeed(hub: ChangeHub): ChangeFeed {
  return {
    announce: () => Promise.resolve(),
    committed(notices) {
      for (const notice of notices) hub.publish(notice);
    },
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

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
