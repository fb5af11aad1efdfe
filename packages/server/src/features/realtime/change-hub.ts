import { EventEmitter } from 'node:events';

/** One entry's new state in a change. `value` null means the key was deleted. */
export interface EntryChange {
  readonly key: string;
  readonly value: string | null;
  readonly generation: number;
  readonly valueType: number;
  /** Change-clock timestamp in microseconds. */
  readonly timestamp: number;
}

/** A committed change of one version: all entries it touched, in one event. */
export interface ChangeNotice {
  readonly serviceId: string;
  readonly versionId: string;
  readonly timestamp: number;
  readonly entries: readonly EntryChange[];
  /** The version (or its service) was deleted: subscribers get the deletions, then the stream ends. */
  readonly versionDeleted: boolean;
}

export type ChangeListener = (notice: ChangeNotice) => void;

/**
 * In-process fan-in point of committed changes. Writers publish after commit; the realtime stream
 * and the GetConfig snapshot listen per version.
 */
export interface ChangeHub {
  publish(notice: ChangeNotice): void;
  subscribe(versionId: string, listener: ChangeListener): () => void;
  subscribeAll(listener: ChangeListener): () => void;
}

const ALL = Symbol('all');

export function createChangeHub(): ChangeHub {
  const emitter = new EventEmitter();
  // Every subscribed stream adds a listener on its version; thousands are expected.
  emitter.setMaxListeners(0);
  return {
    publish(notice) {
      emitter.emit(notice.versionId, notice);
      emitter.emit(ALL, notice);
    },
    subscribe(versionId, listener) {
      emitter.on(versionId, listener);
      return () => emitter.off(versionId, listener);
    },
    subscribeAll(listener) {
      emitter.on(ALL, listener);
      return () => emitter.off(ALL, listener);
    },
  };
}
