import { auditView, type Actor, type VersionRecord, type WriteContext } from '../../core/index.js';
import type { IdGenerator } from '../../platform/ids.js';

/** What a new version is made of; the rest (id, times) the creation fills in. */
export interface NewVersion {
  readonly serviceId: string;
  readonly versionLabel: string;
  readonly description: string | null;
  readonly protected: boolean;
  /** The label of the version its entries are copied from, told in the audit record. */
  readonly copiedFrom?: string;
}

/**
 * The one way a version comes to be, for the REST commands and for CreateVersion alike: its row, its
 * audit record and its `version.created` report (webhooks), in the caller's transaction.
 */
export async function createVersion(
  ctx: WriteContext,
  how: { readonly actor: Actor; readonly ids: IdGenerator; readonly nowMicros: number },
  fields: NewVersion,
): Promise<VersionRecord> {
  const { actor, ids, nowMicros } = how;
  const version: VersionRecord = {
    // The write's own ids when it has them: the same again when it runs again after the service's
    // validators answered (features/validators).
    id: (ctx.ids ?? ids).newId(),
    serviceId: fields.serviceId,
    versionLabel: fields.versionLabel,
    description: fields.description,
    protected: fields.protected,
    createdAt: nowMicros,
    updatedAt: nowMicros,
  };
  await ctx.versions.insert(version);
  const copied = fields.copiedFrom === undefined ? {} : { copiedFrom: fields.copiedFrom };
  await ctx.audit.append({
    id: ids.newId(),
    serviceId: version.serviceId,
    entityType: 'Version',
    entityId: version.id,
    action: 'Created',
    ...actor,
    timestamp: nowMicros,
    changes: { after: { ...auditView(version), ...copied } },
  });
  ctx.report({
    type: 'version.created',
    serviceId: version.serviceId,
    versionId: version.id,
    versionLabel: version.versionLabel,
    actor,
    timestamp: nowMicros,
    version,
  });
  return version;
}
