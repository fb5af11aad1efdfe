import type { ChangeHub, ChangeNotice, EntryChange, SecretCipher } from '../core/index.js';
import { decodeNotice } from './notice-wire.js';
import type { ChangeLogStore } from './stores/change-log-store.js';

/**
 * Per watched version, replays from the change log every change after the last one the hub has,
 * exactly as committed (renames and deletions included): what a change feed does when it may have
 * missed changes (a lost LISTEN connection, a switch between LISTEN and the follower's poller).
 * Changes older than the log's retention are recovered from the entries themselves, where the
 * intermediate values of a key collapse into its latest state, as in any backfill.
 */
export async function replayWatchedVersions(
  log: ChangeLogStore,
  hub: ChangeHub,
  cipher: SecretCipher,
  deliver: (notice: ChangeNotice) => void,
): Promise<void> {
  for (const versionId of hub.watchedVersions()) {
    let deleted = false;
    for (const payload of await log.payloadsSince(versionId, hub.lastTimestamp(versionId) ?? 0)) {
      const notice = decodeNotice(payload, cipher);
      deliver(notice);
      deleted ||= notice.kind === 'version-deleted';
    }
    if (!deleted) await replayFromEntries(log, hub, versionId, deliver);
  }
}

async function replayFromEntries(
  log: ChangeLogStore,
  hub: ChangeHub,
  versionId: string,
  deliver: (notice: ChangeNotice) => void,
): Promise<void> {
  const serviceId = await log.serviceOf(versionId);
  if (serviceId === undefined) {
    // Deleted longer ago than the log keeps: its entries are gone with it.
    deliver({ kind: 'version-deleted', serviceId: '', versionId, timestamp: Number.MAX_SAFE_INTEGER, entries: [] });
    return;
  }
  const byTimestamp = new Map<number, EntryChange[]>();
  for (const change of await log.entriesChangedSince(versionId, hub.lastTimestamp(versionId) ?? 0)) {
    const list = byTimestamp.get(change.timestamp) ?? [];
    list.push(change);
    byTimestamp.set(change.timestamp, list);
  }
  for (const [timestamp, entries] of byTimestamp) {
    deliver({ kind: 'entries', serviceId, versionId, timestamp, entries });
  }
}
