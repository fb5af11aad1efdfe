import type { Stores, VersionCaps } from '../../core/index.js';
import {
  hasPolicy,
  requireReveal,
  revealedRecord,
  unreadableSecret,
  type Caller,
  type SecretCipher,
  type UnitOfWork,
} from '../../core/index.js';
import { randomUUID } from 'node:crypto';
import { microsToIso, type Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { EntryPlans, PlanOutcome } from '../entries/index.js';
import {
  exportDocument,
  exportEnv,
  parseDocument,
  parseEnvFile,
  type ConfigFileFormat,
  type ImportedEntry,
} from './config-files.js';
import { parseJsonFile, requireWellFormed } from './file-parsers.js';
import { importPlanner, requireWithinEntryCap } from './import-planner.js';
import type { YamlWorkers } from './yaml-workers.js';

export interface ExportedFile {
  readonly contentType: string;
  readonly fileName: string;
  readonly body: string;
}

/** Where an import's values come from: a file, or another version (promotion). */
export type ImportSource =
  | { readonly kind: 'file'; readonly format: ConfigFileFormat; readonly content: unknown }
  | { readonly kind: 'version'; readonly fromVersionId: string; readonly keys: readonly string[] | null };

const CONTENT_TYPES: Record<ConfigFileFormat, string> = {
  json: 'application/json; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  env: 'text/plain; charset=utf-8',
};

/** Export of a version as a file, and import of a file (or of another version) into one. */
export class ConfigTransfer {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly plans: EntryPlans,
    private readonly clock: Clock,
    private readonly caps: VersionCaps,
    private readonly yaml: YamlWorkers,
    private readonly cipher: SecretCipher,
  ) {}

  /**
   * A version as a file. Secrets are left out unless `includeSecrets` (canReveal only), which writes
   * one `Revealed` audit record per secret in the same transaction that reads them.
   */
  async exportFile(
    caller: Caller,
    serviceId: string,
    versionId: string,
    options: { format: ConfigFileFormat; flat: boolean; includeSecrets: boolean },
  ): Promise<ExportedFile> {
    const { format, flat, includeSecrets } = options;
    if (includeSecrets) requireReveal(caller);
    const read = async (stores: Stores) => ({
      service: await stores.services.get(serviceId),
      version: await stores.versions.get(serviceId, versionId),
      entries: await stores.entries.listLive(versionId),
    });
    const { service, version, entries } = includeSecrets
      ? await this.uow.write(async (ctx) => {
          const state = await read(ctx);
          const now = this.clock.nowMicros();
          const secrets = state.version ? state.entries.filter((e) => e.isSecret) : [];
          const unreadable = secrets.filter((e) => e.unreadable).map((e) => e.key);
          if (unreadable.length > 0) throw unreadableSecret(unreadable);
          await ctx.audit.appendMany(secrets.map((e) => revealedRecord(randomUUID(), caller, serviceId, e, now)));
          return state;
        })
      : await this.uow.readConsistent(read);
    if (!service || !version) throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
    const secrets = { cipher: this.cipher, include: includeSecrets };
    const header = {
      service: service.name,
      version: version.versionLabel,
      exportedAt: microsToIso(this.clock.nowMicros()),
    };
    const fileName = `${service.name}-${version.versionLabel}.${format}`.replace(/[^\w.@-]+/g, '_');
    const body =
      format === 'env'
        ? exportEnv(entries, header, secrets)
        : format === 'yaml'
          ? await this.yaml.stringify(exportDocument(entries, header, flat, secrets), entries.length)
          : `${JSON.stringify(exportDocument(entries, header, flat, secrets), null, 2)}\n`;
    return { contentType: CONTENT_TYPES[format], fileName, body };
  }

  /**
   * The changes an import makes (dry run), or makes them: one batch, audited `Imported` for a file
   * and `Promoted` for the values of another version.
   */
  async import(
    caller: Caller,
    target: { serviceId: string; versionId: string },
    source: ImportSource,
    options: { dryRun: boolean; createMissing: boolean; basedOn: string | null },
  ): Promise<PlanOutcome> {
    const read =
      source.kind === 'file'
        ? await this.fileReader(source.format, source.content)
        : await this.versionReader(caller, target.serviceId, source);
    const planner = importPlanner(read, {
      createMissing: options.createMissing,
      maxEntries: this.caps.maxEntries,
      sentValues: source.kind === 'file',
    });
    if (options.dryRun) return this.plans.preview(caller, target.serviceId, target.versionId, planner);
    const action = source.kind === 'version' ? 'Promoted' : 'Imported';
    return this.plans.apply(caller, target, planner, { basedOn: options.basedOn, action });
  }

  /** A promotion: the live entries of another version (of this service; of any service for canAll). */
  private async versionReader(
    caller: Caller,
    serviceId: string,
    source: Extract<ImportSource, { kind: 'version' }>,
  ): Promise<() => ImportedEntry[]> {
    const version =
      caller.kind === 'user' && hasPolicy(caller.identity, 'canAll')
        ? await this.uow.read.versions.getById(source.fromVersionId)
        : await this.uow.read.versions.get(serviceId, source.fromVersionId);
    if (!version) throw AppError.notFound(`Version ${source.fromVersionId} was not found.`);
    const wanted = source.keys === null ? null : new Set(source.keys);
    const entries = (await this.uow.read.entries.listLive(version.id)).filter(
      (e) => wanted === null || wanted.has(e.key),
    );
    const missing = wanted === null ? [] : [...wanted].filter((key) => !entries.some((e) => e.key === key));
    if (missing.length > 0) {
      throw AppError.invalid(`Version ${version.versionLabel} has no ${missing.slice(0, 10).join(', ')}.`, {
        keys: missing.map((key) => `${key} is not in version ${version.versionLabel}`),
      });
    }
    const imported = entries.map((e): ImportedEntry => ({
      key: e.key,
      value: { raw: e.rawValue },
      meta: {
        type: String(e.valueType),
        name: e.name,
        description: e.description,
        groupName: e.groupName,
        groupDescription: e.groupDescription,
        enumDefinition: e.enumDefinition,
        schema: e.schema,
        // A copy makes the versions compare equal: the overrides come with the value.
        overrides: e.overrides.map(({ labels, rawValue }) => ({ labels, rawValue })),
        ...(e.isSecret ? { isSecret: true } : {}),
      },
    }));
    return () => imported;
  }

  /** The entries of a file, read before the database is asked anything. */
  private async fileReader(
    format: ConfigFileFormat,
    content: unknown,
  ): Promise<(knownKeys: ReadonlySet<string>) => ImportedEntry[]> {
    if (format === 'env') {
      if (typeof content !== 'string') throw AppError.invalid('An env file is sent as text/plain.');
      const entries = parseEnvFile(content);
      requireWithinEntryCap(entries.length, this.caps.maxEntries);
      requireWellFormed(Object.fromEntries(entries.map((e) => [e.key, e.value])));
      return () => entries;
    }
    let document = content;
    if (typeof content === 'string') {
      // A JSON body arrives parsed (and checked) by the route; a file sent as text is parsed here.
      document = format === 'yaml' ? await this.yaml.parse(content) : parseJsonFile(content);
    }
    requireWellFormed(document);
    return (knownKeys) => parseDocument(document, knownKeys);
  }
}
