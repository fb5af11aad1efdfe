import { receivesSecrets, requireServiceAccess, type Caller, type UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { audienceOf, reaches, type VersionSnapshots } from '../realtime/index.js';
import { evaluateEntry, flagNotFound, type EvaluationContext, type FlagEvaluation } from './flag-evaluation.js';

/** Every flag of a version evaluated for one context (OFREP's bulk answer). */
export interface BulkEvaluation {
  readonly flags: FlagEvaluation[];
  /** Null when the version does not exist (then `flags` is empty, as GetConfig answers). */
  readonly versionId: string | null;
}

/**
 * OFREP evaluation from the in-memory version snapshots GetConfig answers from: no database read
 * per request once a version is loaded. The caller is a service API key with the `read` scope, and
 * the key names the service; secret entries are evaluated only for a key with the `secrets` scope,
 * and for any other caller they do not exist (FLAG_NOT_FOUND).
 */
export class FlagEvaluations {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly snapshots: VersionSnapshots,
  ) {}

  private async audience(caller: Caller): Promise<{ serviceId: string; withSecrets: boolean }> {
    if (caller.kind !== 'apiKey') {
      throw AppError.forbidden(
        'OFREP evaluates with a service API key (authorization: Bearer rck_…): the key names the service.',
      );
    }
    await requireServiceAccess(this.uow.read, caller, caller.key.serviceId, 'read');
    return { serviceId: caller.key.serviceId, withSecrets: receivesSecrets(caller) };
  }

  async evaluateAll(caller: Caller, label: string, context: EvaluationContext): Promise<BulkEvaluation> {
    const { serviceId, withSecrets } = await this.audience(caller);
    const version = await this.snapshots.current(serviceId, label);
    if (!version) return { flags: [], versionId: null };
    const audience = audienceOf(withSecrets);
    const flags: FlagEvaluation[] = [];
    for (const entry of version.entries.values()) {
      if (reaches(entry, audience)) flags.push(evaluateEntry(entry, version.versionId, context));
    }
    flags.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { flags, versionId: version.versionId };
  }

  async evaluateOne(caller: Caller, label: string, key: string, context: EvaluationContext): Promise<FlagEvaluation> {
    const { serviceId, withSecrets } = await this.audience(caller);
    const version = await this.snapshots.current(serviceId, label);
    const entry = version?.entries.get(key);
    if (!version || !entry || !reaches(entry, audienceOf(withSecrets))) return flagNotFound(key);
    return evaluateEntry(entry, version.versionId, context);
  }
}
