import { createHash } from 'node:crypto';
import {
  receivesSecrets,
  requireServiceAccess,
  isTargeted,
  resolutionKey,
  type Caller,
  type EntryChange,
  type UnitOfWork,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { audienceOf, reaches, type CurrentVersion, type VersionSnapshots } from '../realtime/index.js';
import { evaluateEntry, flagNotFound, type EvaluationContext, type FlagEvaluation } from './flag-evaluation.js';

/** Every flag of a version evaluated for one context (OFREP's bulk answer). */
export interface BulkEvaluation {
  readonly flags: FlagEvaluation[];
  /** Null when the version does not exist (then `flags` is empty, as GetConfig answers). */
  readonly versionId: string | null;
}

/** A bulk answer as sent: its JSON and its strong ETag (of those bytes). */
export interface EncodedBulk {
  readonly body: string;
  readonly etag: string;
}

/** A strong ETag of an answer's bytes: equal answers, equal tags, whatever changed in between. */
const etagOf = (body: string): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** Versions whose encoded bulk answers are kept, and answers kept per version (groups of contexts). */
const MAX_VERSIONS = 1000;
const MAX_GROUPS = 256;

interface VersionAnswers {
  /** The version's change clock the answers were made at: a change starts them again. */
  readonly timestamp: number;
  /** Its entries with overrides: what decides whether two contexts get the same answer. */
  readonly targeted: readonly EntryChange[];
  readonly answers: Map<string, EncodedBulk>;
}

/**
 * OFREP evaluation from the in-memory version snapshots GetConfig answers from: no database read
 * per request once a version is loaded. The caller is a service API key with the `read` scope, and
 * the key names the service; secret entries are evaluated only for a key with the `secrets` scope,
 * and for any other caller they do not exist (FLAG_NOT_FOUND).
 */
export class FlagEvaluations {
  /** Encoded bulk answers by version id, least recently used first. */
  private readonly encoded = new Map<string, VersionAnswers>();

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

  private evaluateVersion(version: CurrentVersion, withSecrets: boolean, context: EvaluationContext): BulkEvaluation {
    const audience = audienceOf(withSecrets);
    const flags: FlagEvaluation[] = [];
    for (const entry of version.entries.values()) {
      if (reaches(entry, audience)) flags.push(evaluateEntry(entry, version.versionId, context));
    }
    flags.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { flags, versionId: version.versionId };
  }

  /**
   * The bulk answer as sent, made once per state of the version for every context that resolves
   * it alike (core's resolutionKey, as GetConfig's groups of instances): a version without
   * overrides has one answer per audience, whatever the context.
   */
  async evaluateAllEncoded(caller: Caller, label: string, context: EvaluationContext): Promise<EncodedBulk> {
    const { serviceId, withSecrets } = await this.audience(caller);
    const version = await this.snapshots.current(serviceId, label);
    if (!version) return this.encode({ flags: [], versionId: null });
    let cached = this.encoded.get(version.versionId);
    if (cached) this.encoded.delete(version.versionId);
    if (!cached || cached.timestamp !== version.lastTimestamp) {
      const targeted = [...version.entries.values()].filter(isTargeted);
      cached = { timestamp: version.lastTimestamp, targeted, answers: new Map() };
    }
    this.encoded.set(version.versionId, cached);
    if (this.encoded.size > MAX_VERSIONS) this.encoded.delete(this.encoded.keys().next().value as string);
    const key = `${audienceOf(withSecrets)}\n${resolutionKey(cached.targeted, context) ?? ''}`;
    const hit = cached.answers.get(key);
    if (hit) return hit;
    // Made from the state read above: nothing awaited in between, so no change can slip in.
    const answer = this.encode(this.evaluateVersion(version, withSecrets, context));
    if (cached.answers.size >= MAX_GROUPS) cached.answers.clear();
    cached.answers.set(key, answer);
    return answer;
  }

  private encode({ flags, versionId }: BulkEvaluation): EncodedBulk {
    const body = JSON.stringify({ flags, metadata: versionId ? { versionId } : {} });
    return { body, etag: etagOf(body) };
  }

  async evaluateOne(caller: Caller, label: string, key: string, context: EvaluationContext): Promise<FlagEvaluation> {
    const { serviceId, withSecrets } = await this.audience(caller);
    const version = await this.snapshots.current(serviceId, label);
    const entry = version?.entries.get(key);
    if (!version || !entry || !reaches(entry, audienceOf(withSecrets))) return flagNotFound(key);
    return evaluateEntry(entry, version.versionId, context);
  }
}
