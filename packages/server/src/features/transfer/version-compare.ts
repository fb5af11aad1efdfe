import type { EntryRecord, UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

export type Difference = 'added' | 'removed' | 'typeChanged' | 'valueChanged' | 'metadataChanged';

export interface KeyComparison {
  readonly key: string;
  readonly change: Difference;
  /** The metadata (name, description, group, allowed values, schema) differs too. */
  readonly metadataChanged: boolean;
  /** The overrides by label differ (what some instances get differs, so it counts as valueChanged). */
  readonly overridesChanged: boolean;
  readonly base: EntryRecord | null;
  readonly target: EntryRecord | null;
}

export interface VersionRef {
  readonly serviceId: string;
  readonly versionId: string;
  readonly versionLabel: string;
}

const METADATA = ['name', 'description', 'groupName', 'groupDescription', 'enumDefinition'] as const;

/** Compares the live entries of two versions key by key (any two versions, of one service or two). */
export class VersionCompare {
  constructor(private readonly uow: UnitOfWork) {}

  async compare(
    base: { serviceId: string; versionId: string },
    target: { versionId: string; anyService: boolean },
  ): Promise<{ base: VersionRef; target: VersionRef; differences: KeyComparison[]; unchanged: number }> {
    return this.uow.readConsistent(async (stores) => {
      const baseVersion = await stores.versions.get(base.serviceId, base.versionId);
      if (!baseVersion)
        throw AppError.notFound(`Version ${base.versionId} was not found in service ${base.serviceId}.`);
      const targetVersion = target.anyService
        ? await stores.versions.getById(target.versionId)
        : await stores.versions.get(base.serviceId, target.versionId);
      if (!targetVersion) {
        throw AppError.notFound(
          target.anyService
            ? `Version ${target.versionId} was not found.`
            : `Version ${target.versionId} was not found in service ${base.serviceId} (comparing across services needs canAll).`,
        );
      }
      const [left, right] = await Promise.all([
        stores.entries.listLive(baseVersion.id),
        stores.entries.listLive(targetVersion.id),
      ]);
      const baseByKey = new Map(left.map((e) => [e.key, e]));
      const targetByKey = new Map(right.map((e) => [e.key, e]));
      const differences: KeyComparison[] = [];
      let unchanged = 0;
      for (const key of [...new Set([...baseByKey.keys(), ...targetByKey.keys()])].sort()) {
        const a = baseByKey.get(key) ?? null;
        const b = targetByKey.get(key) ?? null;
        const metadataChanged =
          a !== null &&
          b !== null &&
          (METADATA.some((field) => a[field] !== b[field]) || JSON.stringify(a.schema) !== JSON.stringify(b.schema));
        const overridesChanged =
          a !== null && b !== null && JSON.stringify(a.overrides) !== JSON.stringify(b.overrides);
        const change: Difference | null =
          a === null
            ? 'added'
            : b === null
              ? 'removed'
              : a.valueType !== b.valueType
                ? 'typeChanged'
                : a.rawValue !== b.rawValue || overridesChanged
                  ? 'valueChanged'
                  : metadataChanged
                    ? 'metadataChanged'
                    : null;
        if (change) differences.push({ key, change, metadataChanged, overridesChanged, base: a, target: b });
        else unchanged++;
      }
      const ref = (v: { id: string; serviceId: string; versionLabel: string }): VersionRef => ({
        serviceId: v.serviceId,
        versionId: v.id,
        versionLabel: v.versionLabel,
      });
      return { base: ref(baseVersion), target: ref(targetVersion), differences, unchanged };
    });
  }
}
