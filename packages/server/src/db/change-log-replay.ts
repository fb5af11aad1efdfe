import type { ChangeHub, ChangeNotice, EntryChange, SecretCipher } from '../core/index.js';
import { decodeNotice } from './notice-wire.js';
import type { ChangeLogStore } from './stores/change-log-store.js';

/**
 * Per watched version, replays from the change log every change after the last one the hub has,
 * exactly as committed (renames and deletions included): what a change feed does when it may have
 * missed changes (a lost LISTEN connection, a switch between LISTEN and the follower's poller).
 * Changes older than the log's retention are recovered from the entries themselves, where the
 * intermediate values of a key collapse into its latest state, as in any backfill.
 *
 * A version the hub has passed no change of since its listeners came has no last timestamp: each
 * listener read the version after it began listening, so all it can lack is newer than that read,
 * and the version's current state holds it. That state is what it gets (bounded by the version's
 * size), not up to a day of its change log.
 */
export async function replayWatchedVersions(
  log: ChangeLogStore,
  hub: ChangeHub,
  cipher: SecretCipher,
  deliver: (notice: ChangeNotice) => void,
): Promise<void> {
  for (const versionId of hub.watchedVersions()) {
    const last = hub.lastTimestamp(versionId);
    if (last === undefined) {
      await replayFromEntries(log, versionId, undefined, deliver);
      continue;
    }
    let deleted = false;
    for (const payload of await log.payloadsSince(versionId, last)) {
      const notice = decodeNotice(payload, cipher);
      deliver(notice);
      deleted ||= notice.kind === 'version-deleted';
    }
    if (!deleted) await replayFromEntries(log, versionId, hub.lastTimestamp(versionId) ?? last, deliver);
  }
}

/**
 * The state of every entry changed after `afterTs`, one notice per timestamp, oldest first; with
 * `afterTs` undefined, of every entry, for listeners that heard nothing of the version yet.
 */
async function replayFromEntries(
  log: ChangeLogStore,
  versionId: string,
  afterTs: number | undefined,
  deliver: (notice: ChangeNotice) => void,
): Promise<void> {
  const serviceId = await log.serviceOf(versionId);
  if (serviceId === undefined) {
    // Deleted longer ago than the log keeps: its entries are gone with it.
    deliver({ kind: 'version-deleted', serviceId: '', versionId, timestamp: Number.MAX_SAFE_INTEGER, entries: [] });
    return;
  }
  if (afterTs === undefined) {
    // A rename the log would have told of: caches that find versions by label look them up again.
    // Older than anything a listener holds, it changes nothing else.
    deliver({ kind: 'version-updated', serviceId, versionId, timestamp: 0, entries: [] });
  }
  const byTimestamp = new Map<number, EntryChange[]>();
  for (const change of await log.entriesChangedSince(versionId, afterTs ?? 0)) {
    const list = byTimestamp.get(change.timestamp) ?? [];
    list.push(change);
    byTimestamp.set(change.timestamp, list);
  }
  for (const [timestamp, entries] of byTimestamp) {
    deliver({ kind: 'entries', serviceId, versionId, timestamp, entries });
  }
}
