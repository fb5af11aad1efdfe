import { EventEmitter } from 'node:events';
import type { ChangeListener, ChangeNotice } from './changes.js';

/**
 * In-process fan-in point of committed changes. The change feed (after commit with SQLite, LISTEN
 * with PostgreSQL) publishes; the realtime streams and the GetConfig snapshots listen per version.
 * Within a version it passes each change once, in timestamp order: a notice not newer than the last
 * one (a re-sync overlapping what was already delivered) is dropped.
 */
export interface ChangeHub {
  publish(notice: ChangeNotice): void;
  subscribe(versionId: string, listener: ChangeListener): () => void;
  subscribeAll(listener: ChangeListener): () => void;
  /** Timestamp of the last change published for the version, or undefined when none was seen. */
  lastTimestamp(versionId: string): number | undefined;
  /** Versions with at least one listener: what a re-sync after a lost change feed must cover. */
  watchedVersions(): string[];
}

const ALL = Symbol('all');

export function createChangeHub(): ChangeHub {
  const emitter = new EventEmitter();
  // Every subscribed stream or snapshot adds a listener on its version; thousands are expected.
  emitter.setMaxListeners(0);
  const last = new Map<string, number>();
  return {
    publish(notice) {
      const previous = last.get(notice.versionId);
      if (previous !== undefined && notice.timestamp <= previous) return;
      if (notice.kind === 'version-deleted') last.delete(notice.versionId);
      else last.set(notice.versionId, notice.timestamp);
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
    lastTimestamp: (versionId) => last.get(versionId),
    watchedVersions: () => emitter.eventNames().filter((name): name is string => typeof name === 'string'),
  };
}
