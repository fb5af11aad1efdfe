import { entryChangeOf, type ChangeNotice } from './changes.js';
import { tombstoneOf } from './entry-writer.js';
import type { WriteContext } from './stores.js';

/**
 * Inside a write that deletes a version (or its service): advances the version's clock and builds
 * the event that deletes every live key, so subscribers see the deletions before their stream ends.
 */
export async function versionDeletionNotice(
  ctx: WriteContext,
  serviceId: string,
  versionId: string,
  nowMicros: number,
): Promise<ChangeNotice> {
  const timestamp = (await ctx.versions.advanceClock(versionId, nowMicros))?.timestamp ?? nowMicros;
  const live = await ctx.entries.listLive(versionId);
  return {
    serviceId,
    versionId,
    timestamp,
    kind: 'version-deleted',
    entries: live.map((e) => entryChangeOf(tombstoneOf(e, timestamp))),
  };
}
